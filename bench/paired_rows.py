"""Two runs of the same methods on the same questions, paired question by question: hits@1
before and after, the questions only one got right, the exact McNemar p-value, and what the newer
run cost (tokens of its answering call, seconds per question, per hop).

    python bench/paired_rows.py results/presets/preset=tuned results/tuned-52 --methods simgrag
    python bench/paired_rows.py results/metaqa-heldout results/tuned-52 --methods grag

Each folder holds `1hop.jsonl` ... as `bench/eval_metaqa_heldout.py` writes them. The answering
call is the `generation` stage with its `reask` (rows without `stage_tokens` fall back to all
completion tokens).
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from kgviz.eval.results_file import read_results
from kgviz.eval.significance import exact_mcnemar, wilson_interval

ANSWERING = ("generation", "reask")


def rows_of(folder: Path, method: str) -> dict[str, dict]:
    found: dict[str, dict] = {}
    for path in sorted(folder.glob("*hop.jsonl")):
        for row in read_results(path):
            if row["method"] == method:
                found[row["qid"]] = dict(row)
    return found


def answering_tokens(row: dict) -> int:
    stages = row.get("stage_tokens")
    if not stages:
        return int(row["completion_tokens"])
    return sum(stages.get(stage, [0, 0])[1] for stage in ANSWERING)


def compare(before: dict[str, dict], after: dict[str, dict], method: str) -> None:
    shared = sorted(set(before) & set(after))
    old = [bool(before[q]["hit1"]) for q in shared]
    new = [bool(after[q]["hit1"]) for q in shared]
    only_old = sum(o and not n for o, n in zip(old, new))
    only_new = sum(n and not o for o, n in zip(old, new))
    low, high = wilson_interval(sum(new), len(new))
    p = exact_mcnemar(only_old, only_new)
    print(
        f"{method}: {len(shared)} paired questions; hits@1 {sum(old) / len(old):.2f} before, "
        f"{sum(new) / len(new):.2f} after ({low:.2f}-{high:.2f}); right only before "
        f"{only_old}, only after {only_new}; exact McNemar p = {p:.3g}"
    )
    for hops in sorted({after[q]["hops"] for q in shared}):
        ids = [q for q in shared if after[q]["hops"] == hops]
        rows, olds = [after[q] for q in ids], [before[q] for q in ids]
        median = statistics.median
        print(
            f"  {hops}-hop n={len(rows)}: hits@1 {statistics.mean(r['hit1'] for r in olds):.2f}"
            f" -> {statistics.mean(r['hit1'] for r in rows):.2f}; answering call "
            f"{median(map(answering_tokens, rows)):.0f} tokens generated (median; before "
            f"{median(map(answering_tokens, olds)):.0f}); "
            f"{median(r['seconds'] for r in rows):.1f} s per question (median; before "
            f"{median(r['seconds'] for r in olds):.1f}); "
            f"{median(r['prompt_tokens'] for r in rows):.0f} prompt tokens"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--methods", default="simgrag,gnnrag,subgraphrag,grag")
    args = parser.parse_args()
    for method in args.methods.split(","):
        before, after = rows_of(args.before, method), rows_of(args.after, method)
        if before and after:
            compare(before, after, method)


if __name__ == "__main__":
    main()
