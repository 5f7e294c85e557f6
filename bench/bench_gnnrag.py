"""GNN-RAG retrieval on held-aside MetaQA dev questions (no LLM): the GNN's Hits@1 and candidate
recall, the answer recall of the evidence (reasoning-path triples), evidence size and retrieval
latency, per hop; with `--augment-with METHOD`, also for the union with that method's evidence.

Latency is question encoding + dense subgraph + GNN + candidates + paths (+ the other method's
retrieval when augmenting), topic entities given.
Usage: python bench/bench_gnnrag.py [--data ../shared/data] [--per-hop 100]
                                    [--augment-with subgraphrag]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
import torch

from kgviz.datasets.splits import metaqa_heldout
from kgviz.reasoners.base import ReasonerContext
from kgviz.reasoners.gnnrag.augment import augmenting_reasoner, borrowed_evidence
from kgviz.reasoners.gnnrag.model import load_gnn
from kgviz.reasoners.gnnrag.paths import evidence_paths
from kgviz.reasoners.gnnrag.prompt import path_messages
from kgviz.reasoners.gnnrag.reasoner import unique_triples
from kgviz.reasoners.gnnrag.retrieval import GNNRAGRetrieval, encode_questions, retrieve
from kgviz.reasoners.gnnrag.samples import build_samples
from kgviz.reasoners.text_features import kg_text_embeddings
from kgviz.scoring.metrics import evidence_recall

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = os.environ.get("KGVIZ_DATA", str(REPO.parent / "shared" / "data"))
COLUMNS = ("hits@1", "cand", "cand_rec", "ev_hit", "ev_rec", "triples", "paths", "chars", "lat_ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=DEFAULT_DATA)
    parser.add_argument(
        "--per-hop", type=int, default=100, help="first N held-aside questions per hop"
    )
    parser.add_argument(
        "--augment-with", default=None, help="also measure the union with this method's evidence"
    )
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    model, card = load_gnn()
    settings = GNNRAGRetrieval(**card["retrieval"])
    dataset, records = metaqa_heldout(Path(args.data), args.per_hop)
    kg = dataset.kg
    text = kg_text_embeddings(kg)
    samples = build_samples(kg, text, records, settings, progress=True)
    encode_questions(text, [s.record.question for s in samples[:8]])  # load the encoder first
    method = args.augment_with
    augmenter = augmenting_reasoner(ReasonerContext(dataset, llm=None), method) if method else None

    rows: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for sample in samples:
        record, gold = sample.record, sample.record.answers
        variants = {}
        start = time.perf_counter()
        question = encode_questions(text, [record.question])[0]
        found = retrieve(kg, model, text, question, sample.subgraph.topics.tolist(), settings)
        variants["gnn"] = (found.paths, time.perf_counter() - start)
        if augmenter is not None:
            start = time.perf_counter()
            topics = list(record.topic_entities)
            borrowed = borrowed_evidence(augmenter, record.question, topics)
            extra = evidence_paths(borrowed, topics, settings.hops, method)
            seen = {tuple(p.triples) for p in found.paths}
            union = found.paths + [p for p in extra if tuple(p.triples) not in seen]
            variants[f"+{method}"] = (union, variants["gnn"][1] + time.perf_counter() - start)
        labels = sample.labels[found.candidates]
        for variant, (paths, seconds) in variants.items():
            evidence = unique_triples(paths)
            entities = {name for h, _, t in evidence for name in (h, t)}
            messages = path_messages(record.question, [p.text for p in paths])
            for group in (f"{record.hops}-hop", "all"):
                row = rows[f"{variant} {group}"]
                row["hits@1"].append(float(labels[0]) if len(labels) else 0.0)
                row["cand"].append(len(found.candidates))
                row["cand_rec"].append(labels.sum() / len(sample.answers))
                row["ev_hit"].append(float(evidence_recall(evidence, gold)))
                row["ev_rec"].append(len(entities & set(gold)) / len(set(gold)))
                row["triples"].append(len(evidence))
                row["paths"].append(len(paths))
                row["chars"].append(sum(len(m["content"]) for m in messages))
                row["lat_ms"].append(seconds * 1000)

    print(f"GNN-RAG retrieval, MetaQA dev heldout part, checkpoint: {card['command']}")
    print(f"{'variant part':<22} {'n':>4} " + " ".join(f"{c:>8}" for c in COLUMNS))
    for name, row in sorted(rows.items(), key=lambda item: (item[0].split()[0] != "gnn", item[0])):
        cells = [
            statistics.median(row[c]) if c == "lat_ms" else float(np.mean(row[c])) for c in COLUMNS
        ]
        shown = " ".join(f"{v:>8.3f}" if v < 10 else f"{v:>8.1f}" for v in cells)
        print(f"{name:<22} {len(row['hits@1']):>4} {shown}")
    print(
        "hits@1 = the top GNN node is a gold answer; cand / cand_rec = candidates and the share "
        "of gold answers among them; ev_hit = a gold answer is an entity of the evidence; "
        "ev_rec = the share of gold answers in it; triples / paths / chars = evidence size and "
        "prompt characters (means); lat_ms = median retrieval latency"
    )


if __name__ == "__main__":
    main()
