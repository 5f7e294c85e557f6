"""Labelled questions for training and measuring the retriever: each question's candidate
subgraph, its weak labels (triples on shortest topic -> answer paths inside the candidates), and
the retrieval metrics (triple recall@K, answer recall)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from kgviz.datasets.base import QARecord
from kgviz.embed.cache import cache_for
from kgviz.kg.graph import KnowledgeGraph
from kgviz.kg.weak_labels import resolve, shortest_path_edges
from kgviz.reasoners.subgraphrag.retrieval import (
    CandidateSubgraph,
    SubgraphRAGRetrieval,
    build_subgraph,
    score_subgraph,
)
from kgviz.reasoners.subgraphrag.scorer import TripleScorer
from kgviz.reasoners.text_features import TextEmbeddings


@dataclass
class SubgraphRAGSample:
    """One question: KG ids of its topic entities and answers, candidates, labels per candidate."""

    record: QARecord
    topics: list[int]
    answers: list[int]
    subgraph: CandidateSubgraph
    labels: np.ndarray
    question: torch.Tensor


def weak_labels(
    kg: KnowledgeGraph,
    subgraph: CandidateSubgraph,
    topics: list[int],
    answers: list[int],
    max_hops: int,
) -> np.ndarray:
    """Mask of the candidates on some shortest topic -> answer path that stays in the candidates."""
    edges = subgraph.candidates.edges
    inside = KnowledgeGraph(kg.entities, kg.relations, kg.triples[edges], name="candidates")
    mask = np.zeros(len(edges), dtype=bool)
    mask[sorted(shortest_path_edges(inside, topics, answers, max_hops=max_hops))] = True
    return mask


def build_samples(
    kg: KnowledgeGraph,
    text: TextEmbeddings,
    records: Sequence[QARecord],
    settings: SubgraphRAGRetrieval,
    rounds: int,
    progress: bool = False,
    desc: str = "questions",
) -> list[SubgraphRAGSample]:
    """Samples of the records whose topic entities and answers are KG entities."""
    usable = [(r, resolve(kg, r.topic_entities), resolve(kg, r.answers)) for r in records]
    usable = [(r, topics, answers) for r, topics, answers in usable if topics and answers]
    cache = cache_for(text.encoder)
    questions = text.questions([r.question for r, _, _ in usable], cache)
    rows = zip(usable, questions)
    if progress:
        from tqdm.auto import tqdm

        rows = tqdm(rows, total=len(usable), desc=desc, unit="q")
    samples = []
    for (record, topics, answers), question in rows:
        subgraph = build_subgraph(kg, topics, settings, rounds)
        labels = weak_labels(kg, subgraph, topics, answers, settings.hops)
        samples.append(SubgraphRAGSample(record, topics, answers, subgraph, labels, question))
    return samples


def ranking(scores: torch.Tensor) -> np.ndarray:
    """Candidate positions, best score first (ties keep candidate order)."""
    return np.argsort(-scores.detach().numpy(), kind="stable")


def triple_recall(order: np.ndarray, labels: np.ndarray, k: int) -> float | None:
    """Fraction of the labelled candidates among the top `k`; None when nothing is labelled."""
    total = int(labels.sum())
    return float(labels[order[:k]].sum()) / total if total else None


def answer_recall(kg: KnowledgeGraph, sample: SubgraphRAGSample, order: np.ndarray, k: int) -> bool:
    """Whether a gold answer is an entity of the top `k` triples."""
    rows = kg.triples[sample.subgraph.candidates.edges[order[:k]]]
    return bool(np.isin(sample.answers, rows[:, [0, 2]]).any())


def evaluate(
    kg: KnowledgeGraph,
    scorer: TripleScorer,
    text: TextEmbeddings,
    samples: Sequence[SubgraphRAGSample],
    ks: Sequence[int],
) -> dict[str, dict[str, float]]:
    """Mean triple recall@k, answer recall@k and evidence size@k, per hop and over all questions."""
    rows: dict[str, list[dict[str, float]]] = defaultdict(list)
    with torch.no_grad():
        for sample in samples:
            order = ranking(score_subgraph(scorer, text, sample.question, sample.subgraph))
            row: dict[str, float] = {"candidates": len(order)}
            for k in ks:
                recall = triple_recall(order, sample.labels, k)
                if recall is not None:
                    row[f"triple_recall@{k}"] = recall
                row[f"answer_recall@{k}"] = float(answer_recall(kg, sample, order, k))
                row[f"evidence@{k}"] = min(k, len(order))
            rows[f"{sample.record.hops}-hop"].append(row)
            rows["all"].append(row)
    return {group: _means(group_rows) for group, group_rows in sorted(rows.items())}


def _means(rows: list[dict[str, float]]) -> dict[str, float]:
    keys = dict.fromkeys(key for row in rows for key in row)
    means = {key: float(np.mean([row[key] for row in rows if key in row])) for key in keys}
    return {"questions": len(rows), **{key: round(value, 4) for key, value in means.items()}}
