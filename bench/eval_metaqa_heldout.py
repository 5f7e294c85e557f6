"""Every reasoner on held-aside MetaQA dev questions with one LLM, in growing rounds.

Each round raises the number of questions per hop (the same seeded order every time), so an
interrupted run resumes and a short one still covers every method and hop evenly. Results go
to one resumable JSONL file per hop count, naming questions by id only (the repository keeps no
copy of the dataset); `kgviz report` turns them into tables and charts.

    python bench/eval_metaqa_heldout.py --rounds 10,25,50,100 --out results/metaqa-heldout
    python bench/eval_metaqa_heldout.py --methods subgraphrag --set top_k=30 \
        --out results/ablations/subgraphrag-top30      # an ablation, in files of its own
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from kgviz.cli import parse_settings
from kgviz.eval.plan import EvalPlan
from kgviz.eval.results_file import read_results
from kgviz.eval.runner import run_eval
from kgviz.eval.summary import summarize
from kgviz.session import open_session

METHODS = ["llm-only", "kaping", "gnnrag", "simgrag", "grag", "subgraphrag"]
SAMPLE_SEED = 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rounds", default="10,25,50,100", help="questions per hop after each round"
    )
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--hops", default="1,2,3")
    parser.add_argument("--llm", default="local")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an option of every method run (as kgviz eval --set)",
    )
    parser.add_argument("--out", type=Path, default=Path("results/metaqa-heldout"))
    args = parser.parse_args()
    methods = args.methods.split(",")
    settings = parse_settings(args.set)
    hops = [int(h) for h in args.hops.split(",")]
    sessions = {h: open_session(f"metaqa-{h}hop", args.llm, llm_slots=args.workers) for h in hops}
    for per_hop in (int(n) for n in args.rounds.split(",")):
        for method in methods:
            for h in hops:
                start = time.perf_counter()
                plan = EvalPlan("dev", part="heldout", limit=per_hop, sample_seed=SAMPLE_SEED)
                summary = run_eval(
                    sessions[h],
                    [method],
                    plan,
                    args.out / f"{h}hop.jsonl",
                    progress=False,
                    workers=args.workers,
                    questions=False,
                    settings=settings,
                )
                print(
                    f"round {per_hop}: {method} {h}-hop hits@1 {summary['hits@1']:.3f} "
                    f"n={summary['n']} ({time.perf_counter() - start:.0f} s)",
                    flush=True,
                )
    rows = [row for h in hops for row in read_results(args.out / f"{h}hop.jsonl")]
    print(json.dumps(summarize(rows)))


if __name__ == "__main__":
    main()
