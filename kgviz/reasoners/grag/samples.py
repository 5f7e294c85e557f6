"""Training data of the gate: the nodes and edges of each question's retrieved ego-graphs, labelled
weakly (on a shortest topic -> answer path, answers and topics included), and its evaluation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from kgviz.datasets.base import QARecord
from kgviz.embed.cache import EmbeddingCache, embed_with_cache
from kgviz.kg.weak_labels import resolve, shortest_path_edges
from kgviz.reasoners.grag.ego_index import EgoIndex
from kgviz.reasoners.grag.gate import SoftPruner
from kgviz.reasoners.grag.pruning import keep_within_budget, triple_scores, triple_tokens
from kgviz.reasoners.grag.retrieval import retrieve


@dataclass(frozen=True)
class GRAGRetrieval:
    """How training questions are retrieved (the reasoner's defaults)."""

    hops: int = 2
    max_degree: int = 50
    top_n: int = 5
    scope_hops: int = 1
    description_tokens: int = 1500


@dataclass
class GRAGSample:
    """One question: its vector, the union of its ego-graphs' nodes and edges, and their labels."""

    record: QARecord
    question: np.ndarray  # (dim,)
    nodes: np.ndarray  # entity ids
    edges: np.ndarray  # triple rows
    node_labels: np.ndarray  # (len(nodes),) float32, 1 = on a shortest path
    edge_labels: np.ndarray  # (len(edges),)
    answers: frozenset[int]


def build_sample(
    index: EgoIndex, record: QARecord, question: np.ndarray, settings: GRAGRetrieval
) -> GRAGSample:
    kg = index.kg
    topics, answers = resolve(kg, record.topic_entities), resolve(kg, record.answers)
    retrieved = retrieve(index, question, topics, settings.top_n, settings.scope_hops)
    nodes = np.unique(np.concatenate([r.ego.nodes for r in retrieved]))
    edges = np.unique(np.concatenate([r.ego.edges for r in retrieved]))
    on_path = np.fromiter(shortest_path_edges(kg, topics, answers), dtype=np.int64)
    edge_labels = np.isin(edges, on_path)
    path_nodes = kg.triples[edges[edge_labels]][:, [0, 2]].ravel()
    positive_nodes = np.concatenate([path_nodes, topics, answers])
    return GRAGSample(
        record,
        question,
        nodes,
        edges,
        np.isin(nodes, positive_nodes).astype(np.float32),
        edge_labels.astype(np.float32),
        frozenset(answers),
    )


def question_vectors(index: EgoIndex, records: Sequence[QARecord]) -> np.ndarray:
    """The records' question vectors, from the embedding cache where it holds them."""
    return embed_with_cache(
        index.encoder, [r.question for r in records], EmbeddingCache(index.encoder.model_name)
    )


def build_samples(
    index: EgoIndex,
    records: Sequence[QARecord],
    questions: np.ndarray,
    settings: GRAGRetrieval,
    desc: str,
) -> list[GRAGSample]:
    from tqdm.auto import tqdm

    pairs = tqdm(list(zip(records, questions)), desc=desc, unit="q", leave=False)
    return [build_sample(index, record, vector, settings) for record, vector in pairs]


def sample_tensors(
    index: EgoIndex, sample: GRAGSample
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """`(question, node vectors, edge vectors)` of a sample as tensors."""
    return (
        torch.from_numpy(sample.question),
        torch.from_numpy(index.node_vectors[sample.nodes]),
        torch.from_numpy(index.relation_vectors[index.kg.triples[sample.edges, 1]]),
    )


def average_precision(scores: np.ndarray, labels: np.ndarray) -> float:
    """Area under the precision-recall curve of ranking by `scores` (NaN with no positive)."""
    if not labels.any():
        return float("nan")
    order = np.argsort(-scores, kind="stable")
    hits = labels[order] > 0
    precision = np.cumsum(hits) / np.arange(1, len(hits) + 1)
    return float(precision[hits].mean())


@torch.no_grad()
def evaluate(
    pruner: SoftPruner, index: EgoIndex, samples: Sequence[GRAGSample], budget: int
) -> dict[str, float]:
    """Triple average precision, answer recall of the kept triples, and kept-triple counts."""
    ap, recall, kept_sizes, sizes = [], [], [], []
    for sample in samples:
        node_p, edge_p = pruner.probabilities(*(t.numpy() for t in sample_tensors(index, sample)))
        rows = index.kg.triples[sample.edges]
        scores = triple_scores(rows, dict(zip(sample.nodes.tolist(), node_p.tolist())), edge_p)
        kept = rows[keep_within_budget(scores, triple_tokens(index.kg, sample.edges), budget)]
        ap.append(average_precision(scores, sample.edge_labels))
        recall.append(bool(sample.answers & set(kept[:, [0, 2]].ravel().tolist())))
        kept_sizes.append(len(kept))
        sizes.append(len(rows))
    return {
        "triple_ap": round(float(np.nanmean(ap)), 4),
        "answer_recall": round(float(np.mean(recall)), 4),
        "kept_triples_median": float(np.median(kept_sizes)),
        "retrieved_triples_median": float(np.median(sizes)),
    }
