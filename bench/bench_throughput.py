"""Answers per hour with the offline model: eval workers x llama.cpp threads (and method options),
same questions.

Every setting answers the same held-aside MetaQA dev questions (the seeded order of
bench/eval_metaqa_heldout.py) with the same methods, with the LLM response cache off, each in a
fresh process so that nothing but the setting differs. `WxT` runs `kgviz eval --workers W` (W
parallel llama.cpp slots, decoded together) with `KGVIZ_LLM_THREADS=T`; `WxT:KEY=VALUE;...` also
sets method options (`kgviz eval --set`). The clock runs from the first question to the last
answer (models are loaded before it starts). Prints answers per hour, the ratio to the first
setting, median seconds per answer (overall and per hop), mean prompt tokens and hits@1 per
setting, so a faster setting that answers worse shows it.

    python bench/bench_throughput.py [--settings 1x1,1x2,2x2,4x2] [--per-hop 4] \\
        [--methods gnnrag,simgrag,subgraphrag]
    python bench/bench_throughput.py --methods subgraphrag --per-hop 10 \\
        --settings '1x2:top_k=100,1x2:top_k="auto"'
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kgviz.cli import parse_settings
from kgviz.eval.plan import EvalPlan
from kgviz.eval.results_file import read_results
from kgviz.eval.runner import run_eval
from kgviz.eval.summary import summarize
from kgviz.session import open_session

SAMPLE_SEED = 0  # bench/eval_metaqa_heldout.py's order of held-aside questions


def setting_parts(setting: str) -> tuple[int, str, dict[str, object] | None]:
    """`WxT[:KEY=VALUE;...]` as workers, threads and method options."""
    shape, _, options = setting.partition(":")
    workers, threads = shape.split("x")
    return int(workers), threads, parse_settings(options.split(";")) if options else None


def measure(setting: str, methods: list[str], per_hop: int, hops: list[int]) -> dict:
    """Answer the questions under one `WxT[:options]` setting in this process (threads set by the
    caller)."""
    workers, _, settings = setting_parts(setting)
    rows, seconds = [], 0.0
    with tempfile.TemporaryDirectory() as folder:
        for h in hops:
            session = open_session(f"metaqa-{h}hop", "local", cache_mode="off", llm_slots=workers)
            session.warm_up()
            out = Path(folder) / f"{h}hop.jsonl"
            plan = EvalPlan("dev", part="heldout", limit=per_hop, sample_seed=SAMPLE_SEED)
            start = time.perf_counter()
            run_eval(
                session,
                methods,
                plan,
                out,
                progress=False,
                workers=workers,
                questions=False,
                settings=settings,
            )
            seconds += time.perf_counter() - start
            rows += read_results(out)
    return {
        "setting": setting,
        "answers": len(rows),
        "seconds": round(seconds, 1),
        "per_hour": round(len(rows) / seconds * 3600, 1),
        "median_s": round(statistics.median(row["seconds"] for row in rows), 2),
        "median_s_per_hop": [
            round(statistics.median([row["seconds"] for row in rows if row["hops"] == h] or [0]), 1)
            for h in hops
        ],
        "prompt_tokens": round(statistics.mean(row["prompt_tokens"] for row in rows)),
        "hits@1": summarize(rows)["hits@1"],
    }


def run_setting(setting: str, args: argparse.Namespace) -> dict:
    """`measure` in a fresh process with the setting's llama.cpp thread count."""
    threads = setting_parts(setting)[1]
    command = [
        sys.executable,
        __file__,
        "--one",
        setting,
        "--methods",
        args.methods,
        "--per-hop",
        str(args.per_hop),
        "--hops",
        args.hops,
    ]
    env = {**os.environ, "KGVIZ_LLM_THREADS": threads}
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"setting {setting} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--settings", default="1x1,1x2,2x2,4x2", help="WORKERSxTHREADS, ...")
    parser.add_argument("--methods", default="gnnrag,simgrag,subgraphrag")
    parser.add_argument("--per-hop", type=int, default=4)
    parser.add_argument("--hops", default="1,2,3")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: one setting, this process
    args = parser.parse_args()
    methods, hops = args.methods.split(","), [int(h) for h in args.hops.split(",")]
    if args.one:
        print(json.dumps(measure(args.one, methods, args.per_hop, hops)))
        return
    print(f"{os.cpu_count()} cores; methods {args.methods}; {args.per_hop} questions per hop")
    print(
        f"{'setting':>8} {'answers':>7} {'seconds':>8} {'per hour':>9} {'ratio':>6} "
        f"{'median s':>9} {'per hop':>16} {'prompt':>6} {'hits@1':>7}"
    )
    baseline = None
    for setting in args.settings.split(","):
        result = run_setting(setting, args)
        baseline = baseline or result["per_hour"]
        print(
            f"{setting:>8} {result['answers']:>7} {result['seconds']:>8.1f} "
            f"{result['per_hour']:>9.1f} {result['per_hour'] / baseline:>6.2f} "
            f"{result['median_s']:>9.2f} "
            f"{' / '.join(map(str, result['median_s_per_hop'])):>16} "
            f"{result['prompt_tokens']:>6} {result['hits@1']:>7.3f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
