"""SubgraphRAG retrieval on held-aside MetaQA dev questions (no LLM): triple recall@K (share of the
weak-label triples in the top K), answer recall (a gold answer is an entity of the top-K triples),
evidence size and retrieval latency, per hop.

Latency is question embedding + candidates + DDE + scoring + ranking, topic entities given.
Usage: python bench/bench_subgraphrag.py [--data ../shared/data] [--per-hop 100]
       [--checkpoint-root FOLDER] [--max-candidates N] [--hub-degree N]

`--max-candidates` and `--hub-degree` replace the checkpoint's candidate settings (the `paper`
preset lifts both: `--max-candidates 1000000 --hub-degree 100000000`).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch

from kgviz.datasets.splits import metaqa_heldout
from kgviz.reasoners.subgraphrag.prompt import reasoning_messages
from kgviz.reasoners.subgraphrag.retrieval import (
    SubgraphRAGRetrieval,
    build_subgraph,
    score_subgraph,
)
from kgviz.reasoners.subgraphrag.samples import answer_recall, build_samples, evaluate, ranking
from kgviz.reasoners.subgraphrag.scorer import load_scorer
from kgviz.reasoners.text_features import kg_text_embeddings

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = os.environ.get("KGVIZ_DATA", str(REPO.parent / "shared" / "data"))
KS = (30, 50, 100, 200)  # 30: `top_k="auto"` for readers up to 3B parameters


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=DEFAULT_DATA)
    parser.add_argument(
        "--per-hop", type=int, default=100, help="first N held-aside questions per hop"
    )
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--checkpoint-root",
        type=Path,
        help="folder holding subgraphrag/ (default: the packaged one)",
    )
    parser.add_argument("--max-candidates", type=int, help="most candidate triples scored")
    parser.add_argument("--hub-degree", type=int, help="entities with more edges are not walked")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    scorer, card = load_scorer(args.checkpoint_root)
    settings = SubgraphRAGRetrieval(**card["retrieval"])
    if args.max_candidates is not None:
        settings = replace(settings, max_candidates=args.max_candidates)
    if args.hub_degree is not None:
        settings = replace(settings, hub_degree=args.hub_degree)
    dataset, records = metaqa_heldout(Path(args.data), args.per_hop)
    kg = dataset.kg
    text = kg_text_embeddings(kg)
    samples = build_samples(kg, text, records, settings, scorer.shape.rounds, progress=True)
    text.questions([s.record.question for s in samples[:8]])  # load the encoder before timing

    latency, ceiling, prompt_chars = {}, {}, {}
    with torch.no_grad():
        for sample in samples:
            start = time.perf_counter()
            question = text.questions([sample.record.question])[0]
            subgraph = build_subgraph(kg, sample.topics, settings, scorer.shape.rounds)
            order = ranking(score_subgraph(scorer, text, question, subgraph))
            elapsed = time.perf_counter() - start
            evidence = [kg.triple_names(e) for e in subgraph.candidates.edges[order[:100]].tolist()]
            messages = reasoning_messages(sample.record.question, evidence)
            chars = sum(len(m["content"]) for m in messages)
            for group in (f"{sample.record.hops}-hop", "all"):
                latency.setdefault(group, []).append(elapsed * 1000)
                ceiling.setdefault(group, []).append(answer_recall(kg, sample, order, len(order)))
                prompt_chars.setdefault(group, []).append(chars)
    metrics = evaluate(kg, scorer, text, samples, KS)

    head = (
        f"{'part':<6} {'n':>4} {'cands':>6} "
        + " ".join(f"{'TR@' + str(k):>6}" for k in KS)
        + " "
        + " ".join(f"{'AR@' + str(k):>6}" for k in KS)
        + f" {'AR@all':>6} {'ev@100':>6} {'chars@100':>9} {'lat ms':>7} {'p95 ms':>7}"
    )
    print(f"SubgraphRAG retrieval, MetaQA dev heldout part, checkpoint: {card['command']}")
    print(f"candidates: {settings}")
    print(head)
    for group, row in metrics.items():
        times = sorted(latency[group])
        print(
            f"{group:<6} {row['questions']:>4} {row['candidates']:>6.0f} "
            + " ".join(f"{row[f'triple_recall@{k}']:>6.3f}" for k in KS)
            + " "
            + " ".join(f"{row[f'answer_recall@{k}']:>6.3f}" for k in KS)
            + f" {np.mean(ceiling[group]):>6.3f} {row['evidence@100']:>6.1f}"
            f" {np.mean(prompt_chars[group]):>9.0f} {statistics.median(times):>7.1f}"
            f" {times[int(0.95 * (len(times) - 1))]:>7.1f}"
        )
    print(
        "TR = triple recall (weak labels), AR = answer recall of the evidence, AR@all = of all "
        "candidates, ev@100 = triples given at K=100, chars@100 = prompt characters at K=100"
    )


if __name__ == "__main__":
    main()
