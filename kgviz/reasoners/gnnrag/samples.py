"""Labelled questions for training and measuring the GNN: each question's dense subgraph, its node
labels (gold answers inside the subgraph) and the node-level metrics (Hits@1, candidate recall)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kgviz.datasets.base import QARecord
from kgviz.embed.cache import cache_for
from kgviz.kg.graph import KnowledgeGraph
from kgviz.kg.weak_labels import resolve
from kgviz.reasoners.gnnrag.gnn import GNNReasoner
from kgviz.reasoners.gnnrag.retrieval import (
    GNNRAGRetrieval,
    Question,
    encode_questions,
    node_probabilities,
    select_candidates,
)
from kgviz.reasoners.gnnrag.subgraph import DenseSubgraph, dense_subgraph
from kgviz.reasoners.text_features import TextEmbeddings


@dataclass
class GNNRAGSample:
    """One question: its answers (KG ids), dense subgraph, and which subgraph nodes are answers."""

    record: QARecord
    answers: list[int]
    subgraph: DenseSubgraph
    labels: np.ndarray
    question: Question


def build_samples(
    kg: KnowledgeGraph,
    text: TextEmbeddings,
    records: Sequence[QARecord],
    settings: GNNRAGRetrieval,
    progress: bool = False,
    desc: str = "questions",
) -> list[GNNRAGSample]:
    """Samples of the records whose topic entities and answers are KG entities."""
    usable = [(r, resolve(kg, r.topic_entities), resolve(kg, r.answers)) for r in records]
    usable = [(r, topics, answers) for r, topics, answers in usable if topics and answers]
    questions = encode_questions(text, [r.question for r, _, _ in usable], cache_for(text.encoder))
    rows = zip(usable, questions)
    if progress:
        from tqdm.auto import tqdm

        rows = tqdm(rows, total=len(usable), desc=desc, unit="q")
    samples = []
    for (record, topics, answers), question in rows:
        subgraph = dense_subgraph(kg, topics, settings.hops, settings.max_nodes, settings.alpha)
        labels = np.isin(subgraph.nodes, answers)
        samples.append(GNNRAGSample(record, answers, subgraph, labels, question))
    return samples


def node_metrics(
    model: GNNReasoner,
    text: TextEmbeddings,
    samples: Sequence[GNNRAGSample],
    settings: GNNRAGRetrieval,
) -> dict[str, dict[str, float]]:
    """Per hop and over all: `hits@1` (the best non-topic node is a gold answer), `recall` (share
    of gold answers among the candidates), `candidates` (mean count) and `coverage` (share of
    gold answers inside the dense subgraph)."""
    rows: dict[str, list[tuple[float, ...]]] = defaultdict(list)
    for sample in samples:
        probabilities = node_probabilities(model, text, sample.question, sample.subgraph)
        chosen = select_candidates(
            sample.subgraph, probabilities, settings.mass, settings.max_candidates
        )
        hit = float(sample.labels[chosen[0]]) if len(chosen) else 0.0
        row = (
            hit,
            sample.labels[chosen].sum() / len(sample.answers),
            len(chosen),
            sample.labels.sum() / len(sample.answers),
        )
        rows["all"].append(row)
        rows[f"{sample.record.hops}-hop"].append(row)
    names = ("hits@1", "recall", "candidates", "coverage")
    return {
        group: {name: round(float(np.mean(column)), 4) for name, column in zip(names, zip(*values))}
        | {"questions": len(values)}
        for group, values in sorted(rows.items())
    }
