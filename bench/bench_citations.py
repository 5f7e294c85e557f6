"""Cited evidence against leave-one-out: how often the triples a run cites are the ones without
which its answer changes.

For each method and each of the demo's dev questions (up to `--questions` per hop), the run is
made with the offline model, then regenerated once without each of its evidence triples (at most
`--limit`, the cited ones first so that every cited triple is probed); a triple "matters" when its
removal changes the committed answers. Printed per method: the triples probed, cited and
mattering, the share of the mattering triples that are cited (recall) and of the cited ones that
matter (precision).

    python bench/bench_citations.py [--methods simgrag,gnnrag,kaping] [--questions 1] [--limit 8]
"""

from __future__ import annotations

import argparse
import os
import time

from kgviz.runs.leave_one_out import leave_one_out
from kgviz.session import open_session


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", default="simgrag,gnnrag,subgraphrag,kaping")
    parser.add_argument("--questions", type=int, default=1, help="demo questions per hop")
    parser.add_argument("--limit", type=int, default=8, help="most triples probed per run")
    args = parser.parse_args()
    print(f"load average at the start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    session = open_session("demo", "local", cache_mode="rw")
    records = session.dataset.questions("dev")
    chosen = [
        record
        for hops in (1, 2, 3)
        for record in [r for r in records if r.hops == hops][: args.questions]
    ]
    head = "method        runs  probed  cited  matter  cited&matter  recall  precision  seconds"
    print(head)
    for method in args.methods.split(","):
        probed = cited = matter = both = runs = 0
        start = time.perf_counter()
        for record in chosen:
            run = session.ask(method, record)
            if not run.trace.evidence or not run.trace.answers:
                continue
            runs += 1
            citing = set(run.trace.cited())
            order = [*citing, *(t for t in run.trace.evidence if t not in citing)]
            for probe in leave_one_out(session, run, order[: args.limit]):
                probed += 1
                cited += probe.triple in citing
                matter += probe.changed
                both += probe.changed and probe.triple in citing
        recall = both / matter if matter else float("nan")
        precision = both / cited if cited else float("nan")
        print(
            f"{method:<13} {runs:>4} {probed:>7} {cited:>6} {matter:>7} {both:>13} "
            f"{recall:>7.2f} {precision:>10.2f} {time.perf_counter() - start:>8.0f}",
            flush=True,
        )
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
