"""Every reasoner on held-aside MetaQA dev questions with one LLM, in growing rounds.

Each round raises the number of questions per hop (the same seeded order every time), so an
interrupted run resumes and a short one still covers every method and hop evenly. Results go
to one resumable JSONL file per hop count, naming questions by id only (the repository keeps no
copy of the dataset); `kgviz report` turns them into tables and charts.

    python bench/eval_metaqa_heldout.py --rounds 10,25,50,100 --out results/metaqa-heldout
    python bench/eval_metaqa_heldout.py --methods subgraphrag --set top_k=30 \
        --out results/ablations/subgraphrag-top30      # an ablation, in files of its own
    python bench/eval_metaqa_heldout.py --methods grag --llm hf:qwen2.5-coder-1.5b \
        --variant soft_prompt=false --variant soft_prompt=true \
        --out results/ablations/grag-soft-prompt       # paired: both settings, round by round
    python bench/eval_metaqa_heldout.py --methods simgrag,gnnrag,subgraphrag \
        --variant preset=tuned --variant preset=paper --out results/presets

With `--variant`, each round runs every variant on the same questions before the next round
starts, so an interrupted comparison stays paired; each variant's rows go to a folder named
after its settings (`OUT/soft_prompt=true/1hop.jsonl`). `preset=NAME` in a variant (or
`--preset`) picks the methods' preset, its other settings are set over it.
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
from kgviz.reasoners.presets import DEFAULT_PRESET, PRESET_NAMES
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
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="KEY=VALUE[,KEY=VALUE]",
        help="one setting to compare (repeat for each); rows go to OUT/<variant>/",
    )
    parser.add_argument("--preset", choices=PRESET_NAMES, default=DEFAULT_PRESET)
    parser.add_argument("--out", type=Path, default=Path("results/metaqa-heldout"))
    args = parser.parse_args()
    methods = args.methods.split(",")
    base = {"preset": args.preset, **parse_settings(args.set)}
    variants = {label: {**base, **parse_settings(label.split(","))} for label in args.variant} or {
        "": base
    }
    for label, settings in variants.items():
        if settings["preset"] not in PRESET_NAMES:
            parser.error(f"{label}: preset must be one of {', '.join(PRESET_NAMES)}")
    hops = [int(h) for h in args.hops.split(",")]
    sessions = {h: open_session(f"metaqa-{h}hop", args.llm, llm_slots=args.workers) for h in hops}
    for per_hop in (int(n) for n in args.rounds.split(",")):
        for method in methods:
            for h in hops:
                for label, setting in variants.items():
                    preset, settings = setting["preset"], dict(setting)
                    del settings["preset"]
                    start = time.perf_counter()
                    plan = EvalPlan("dev", part="heldout", limit=per_hop, sample_seed=SAMPLE_SEED)
                    summary = run_eval(
                        sessions[h],
                        [method],
                        plan,
                        args.out / label / f"{h}hop.jsonl",
                        progress=False,
                        workers=args.workers,
                        questions=False,
                        settings=settings,
                        preset=preset,
                    )
                    print(
                        f"round {per_hop}: {method} {label} {h}-hop hits@1 "
                        f"{summary['hits@1']:.3f} n={summary['n']} "
                        f"({time.perf_counter() - start:.0f} s)",
                        flush=True,
                    )
    for label in variants:
        rows = [row for h in hops for row in read_results(args.out / label / f"{h}hop.jsonl")]
        print(label, json.dumps(summarize(rows)))


if __name__ == "__main__":
    main()
