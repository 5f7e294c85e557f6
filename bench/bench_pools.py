"""SimGRAG's pools stage on MetaQA: encode the pattern's texts, then two faiss searches.

Gold-like patterns of held-aside dev questions (the marked topic entity and the relations the
hop count needs, as phrases) go through `build_pools` twice, alternating per question: with
`KGIndex.embed` reading names already in the embedding cache (as runs do), and with every text
encoded (the baseline). Prints the median and p95 per hop, warm (after one warm-up call each).

With `--traced`, it instead runs SimGRAG itself on those questions with the offline model and
reports the `pools` timing its traces record (the LLM response cache answers the calls that an
earlier run made, so this takes minutes; uncached calls run the model).

    KGVIZ_DATA=../shared/data python bench/bench_pools.py [--per-hop 100] [--traced]
"""

from __future__ import annotations

import argparse
import copy
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from kgviz.datasets import get_dataset
from kgviz.datasets.splits import split_records
from kgviz.eval.plan import EvalPlan
from kgviz.eval.results_file import read_results
from kgviz.eval.runner import run_eval
from kgviz.reasoners.base import ReasonerContext
from kgviz.reasoners.simgrag.pools import build_pools
from kgviz.reasoners.simgrag.query_pattern import parse_pattern
from kgviz.session import open_session

RELATIONS = ["starred actors", "directed by", "written by"]  # phrases as patterns write them


def gold_like(topic: str, hops: int):
    """A chain from the topic entity through `hops` relation phrases to unknown nodes."""
    nodes = [topic] + [f"UNKNOWN thing {i}" for i in range(1, hops + 1)]
    triples = [[nodes[i], RELATIONS[i % 3], nodes[i + 1]] for i in range(hops)]
    return parse_pattern({"phrases": [f"step {i}" for i in range(hops)], "triples": triples}, 6)


def timed(index, pattern) -> float:
    started = time.perf_counter()
    build_pools(index, pattern, 16, 16)
    return (time.perf_counter() - started) * 1000


def cell(values: list[float]) -> str:
    return f"{statistics.median(values):.1f} / {np.percentile(values, 95):.1f}"


def traced(per_hop: int) -> None:
    """The `pools` stage timing of SimGRAG's own traces over held-aside questions."""
    print("| hop | pools in traces: median / p95 ms | n |")
    print("|---|---|---|")
    everything: list[float] = []
    for hops in (1, 2, 3):
        session = open_session(f"metaqa-{hops}hop", "local", cache_mode="rw")
        plan = EvalPlan("dev", part="heldout", limit=per_hop, sample_seed=0)
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder) / "rows.jsonl"
            run_eval(session, ["simgrag"], plan, out, progress=False, questions=False)
            rows = read_results(out)
        pools = [row["timings"]["pools"] * 1000 for row in rows if "pools" in row["timings"]]
        everything += pools
        print(f"| {hops} | {cell(pools)} | {len(pools)} |", flush=True)
    print(f"| all | {cell(everything)} | {len(everything)} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-hop", type=int, default=100)
    parser.add_argument("--traced", action="store_true", help="time SimGRAG's own runs")
    args = parser.parse_args()
    if args.traced:
        traced(args.per_hop)
        return 0
    print("| hop | cached names: median / p95 ms | encode all: median / p95 ms | ratio | n |")
    print("|---|---|---|---|---|")
    for hops in (1, 2, 3):
        dataset = get_dataset(f"metaqa-{hops}hop")
        records = split_records(dataset.questions("dev"))["heldout"][: args.per_hop]
        index = ReasonerContext(dataset, llm=None).index
        baseline = copy.copy(index)
        baseline.embed = index.encoder.encode  # type: ignore[method-assign]
        patterns = [gold_like(r.topic_entities[0], hops) for r in records]
        for which in (index, baseline):
            timed(which, patterns[0])  # warm-up: encoder, cache, faiss
        cached, encoded = [], []
        for pattern in patterns:
            cached.append(timed(index, pattern))
            encoded.append(timed(baseline, pattern))

        ratio = statistics.median(encoded) / statistics.median(cached)
        print(f"| {hops} | {cell(cached)} | {cell(encoded)} | {ratio:.1f}x | {len(patterns)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
