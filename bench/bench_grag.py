"""GRAG retrieval on held-aside MetaQA dev questions (no LLM): answer recall of the retrieved
ego-graphs and of the pruned evidence, evidence size (triples, prompt characters), retrieval
latency, and the time to build the ego-graph index.

Latency is the reasoner's `retrieval` stage (topic entities given): question embedding, top-N
ego-graphs, gating, description. Index build: pooling every entity's ego-graph from cached
name vectors (embedding the names is not counted).
Usage: python bench/bench_grag.py [--data ../shared/data] [--per-hop 100] [--tokens 1000]
       [--top-n 3,10]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import numpy as np
import torch

from kgviz.datasets.metaqa import MetaQA
from kgviz.datasets.splits import split_records
from kgviz.reasoners.base import ReasonerContext
from kgviz.reasoners.grag.ego_index import build_ego_index
from kgviz.reasoners.grag.prompt import qa_messages
from kgviz.reasoners.grag.reasoner import GRAG, GRAGConfig
from kgviz.trace import Trace

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = os.environ.get("KGVIZ_DATA", str(REPO.parent / "shared" / "data"))


def measure(reasoner: GRAG, records: list) -> dict[str, dict[str, list[float]]]:
    """Per hop group: retrieved-ego recall, evidence recall, evidence triples, chars, latency."""
    groups = ("1-hop", "2-hop", "3-hop", "all")
    rows: dict[str, dict[str, list[float]]] = {group: {} for group in groups}
    for record in records:
        trace = Trace(method="grag", question=record.question)
        with trace.stage("retrieval"):
            found = reasoner.retrieve(trace, record.question, record.topic_entities)
        answers = set(record.answers)
        egos = {n for p in trace.stages["pruning"] for n in (node.name for node in p.nodes)}
        evidence = {n for h, _, t in trace.evidence for n in (h, t)}
        messages = qa_messages(found.question, [(d.centre, d.text) for d in found.descriptions])
        values = {
            "ego_recall": bool(egos & answers),
            "recall": bool(evidence & answers),
            "triples": len(trace.evidence),
            "chars": sum(len(m["content"]) for m in messages),
            "ms": trace.timings["retrieval"] * 1000,
        }
        for group in (f"{record.hops}-hop", "all"):
            for key, value in values.items():
                rows[group].setdefault(key, []).append(float(value))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=DEFAULT_DATA)
    parser.add_argument(
        "--per-hop", type=int, default=100, help="first N held-aside questions per hop"
    )
    parser.add_argument(
        "--tokens", type=int, default=GRAGConfig.description_tokens, help="description token budget"
    )
    parser.add_argument(
        "--top-n",
        default=str(GRAGConfig.top_n),
        help="ego-graphs retrieved, comma-separated settings to compare",
    )
    args = parser.parse_args()
    torch.set_num_threads(1)

    records = []
    for hops in (1, 2, 3):
        dataset = MetaQA(hops, Path(args.data))
        records += split_records(dataset.questions("dev"))["heldout"][: args.per_hop]
    config = GRAGConfig(description_tokens=args.tokens)
    start = time.perf_counter()
    build_ego_index(dataset.kg, config.hops, config.max_degree, persist=False)
    build_s = time.perf_counter() - start
    context = ReasonerContext(dataset, llm=None)
    print(
        f"GRAG retrieval, MetaQA dev heldout part ({len(records)} questions); ego index "
        f"({dataset.kg.num_entities} entities, {config.hops} hops, max degree "
        f"{config.max_degree}) built in {build_s:.1f}s"
    )
    print(
        f"{'setting':<24} {'part':<6} {'n':>4} {'AR ego':>6} {'AR':>6} {'triples':>7} "
        f"{'chars':>6} {'lat ms':>7} {'p95 ms':>7}"
    )
    settings = [
        (f"top-{n}, {where}", n, scope)
        for n in map(int, args.top_n.split(","))
        for where, scope in (("topic scope", config.scope_hops), ("whole KG", None))
    ]
    for label, top_n, scope in settings:
        reasoner = GRAG(
            context, GRAGConfig(description_tokens=args.tokens, top_n=top_n, scope_hops=scope)
        )
        reasoner.retrieve_only(records[0].question, records[0].topic_entities)
        for group, row in measure(reasoner, records).items():
            times = sorted(row["ms"])
            print(
                f"{label:<24} {group:<6} {len(times):>4} {np.mean(row['ego_recall']):>6.3f} "
                f"{np.mean(row['recall']):>6.3f} {statistics.median(row['triples']):>7.0f} "
                f"{statistics.median(row['chars']):>6.0f} {statistics.median(times):>7.1f} "
                f"{times[int(0.95 * (len(times) - 1))]:>7.1f}"
            )
    print(
        "AR ego = answer recall of the retrieved ego-graphs, AR = of the pruned evidence given "
        "to the LLM; triples and chars (prompt characters) are medians"
    )


if __name__ == "__main__":
    main()
