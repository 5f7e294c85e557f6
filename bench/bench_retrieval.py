"""Retrieval of every retriever on held-aside MetaQA dev questions, with no LLM call.

For each method and hop count: answer recall of the evidence (a gold answer is an entity of the
triples handed to the LLM), evidence size in triples and in characters of `(h, r, t)` text, and
retrieval latency. SimGRAG is not here: its retrieval starts with an LLM call (the pattern), so
it is measured end to end by `kgviz eval`. Topic entities are the dataset's marked ones.

    python bench/bench_retrieval.py [--per-hop 100] [--methods kaping,subgraphrag,gnnrag,grag]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from kgviz.datasets import get_dataset
from kgviz.datasets.splits import split_records
from kgviz.reasoners.base import ReasonerContext
from kgviz.reasoners.registry import make_reasoner
from kgviz.scoring.metrics import evidence_recall

REPO = Path(__file__).resolve().parents[1]
DEFAULT_METHODS = "kaping,subgraphrag,gnnrag,grag"


def evidence_chars(evidence: list[tuple[str, str, str]]) -> int:
    return sum(len(f"({h}, {r}, {t})") + 1 for h, r, t in evidence)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", default=os.environ.get("KGVIZ_DATA", str(REPO.parent / "shared" / "data"))
    )
    parser.add_argument("--per-hop", type=int, default=100)
    parser.add_argument("--methods", default=DEFAULT_METHODS)
    args = parser.parse_args()
    methods = [m for m in args.methods.split(",") if m]
    print(
        f"{'method':<12} {'hops':>4} {'n':>4} {'ans. recall':>11} {'triples':>8} {'chars':>7} "
        f"{'median ms':>9} {'p95 ms':>7}"
    )
    for hops in (1, 2, 3):
        dataset = get_dataset(f"metaqa-{hops}hop", root=Path(args.data))
        records = split_records(dataset.questions("dev"))["heldout"][: args.per_hop]
        context = ReasonerContext(dataset, llm=None)  # retrieval only: no LLM is ever asked
        for method in methods:
            reasoner = make_reasoner(method, context)
            reasoner.retrieve_only(records[0].question, records[0].topic_entities)  # warm caches
            recall, triples, chars, millis = [], [], [], []
            for record in records:
                started = time.perf_counter()
                trace = reasoner.retrieve_only(record.question, record.topic_entities)
                millis.append((time.perf_counter() - started) * 1000)
                recall.append(evidence_recall(trace.evidence, record.answers))
                triples.append(len(trace.evidence))
                chars.append(evidence_chars(trace.evidence))
            millis.sort()
            print(
                f"{method:<12} {hops:>4} {len(records):>4} {statistics.mean(recall):>11.3f} "
                f"{statistics.median(triples):>8.0f} {statistics.median(chars):>7.0f} "
                f"{statistics.median(millis):>9.1f} {millis[int(0.95 * (len(millis) - 1))]:>7.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
