"""A learned retriever on a graph that is not MetaQA: GNN-RAG with its packaged MetaQA weights
against GNN-RAG quick-trained on the family KG, on the same held-out questions and the same LLM.

    python bench/eval_family_transfer.py [--limit 120] [--out results/family-gnnrag]

Trains GNN-RAG on the train/val parts of the built-in family KG's questions with `--quick`, then
answers a seeded sample of the held-out part twice (rows in `<out>/metaqa-weights.jsonl` and
`<out>/family-weights.jsonl`; runs resume) and prints both.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from kgviz.checkpoints.store import CHECKPOINTS, user_checkpoints
from kgviz.cli import main as kgviz
from kgviz.eval.results_file import read_results
from kgviz.eval.summary import summarize


def evaluate(dataset: str, root: Path, out: Path, limit: int, llm: str) -> dict:
    """GNN-RAG with the checkpoint under `root` on a seeded sample of the held-out part."""
    argv = ["eval", "--dataset", dataset, "--split", "dev", "--part", "heldout"]
    argv += ["--sample", "0", "--limit", str(limit), "--method", "gnnrag", "--llm", llm]
    argv += ["--set", f"checkpoint_root={root}", "--out", str(out), "--quiet"]
    if kgviz(argv) != 0:
        raise SystemExit(f"eval into {out} failed")
    return summarize(read_results(out))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=120, help="held-out questions answered")
    parser.add_argument("--llm", default="auto")
    parser.add_argument("--out", type=Path, default=Path("results/family-gnnrag"))
    args = parser.parse_args()
    dataset = "family"
    started = time.perf_counter()
    if kgviz(["train", "gnnrag", "--dataset", dataset, "--quick", "--threads", "2"]) != 0:
        raise SystemExit("training failed")
    print(f"quick training took {time.perf_counter() - started:.0f} s", file=sys.stderr)
    args.out.mkdir(parents=True, exist_ok=True)
    runs = {
        "MetaQA weights (packaged)": (CHECKPOINTS, "metaqa-weights.jsonl"),
        "family weights (--quick)": (user_checkpoints(dataset), "family-weights.jsonl"),
    }
    columns = ["GNN-RAG checkpoint", "hits@1", "hit", "named", "evidence recall"]
    columns += ["1-hop", "2-hop", "3-hop", "n"]
    print("| " + " | ".join(columns) + " |\n" + "|---" * len(columns) + "|")
    for label, (root, file) in runs.items():
        summary = evaluate(dataset, root, args.out / file, args.limit, args.llm)
        hops = summary.get("by_method", {}).get("gnnrag", {}).get("by_hops", {})
        per_hop = [f"{hops[h]['hits@1']:.2f}" if h in hops else "-" for h in ("1", "2", "3")]
        print(
            f"| {label} | {summary['hits@1']:.2f} | {summary['hit']:.2f} | {summary['named']:.2f} "
            f"| {summary['evidence_recall']:.2f} | {' | '.join(per_hop)} | {summary['n']} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
