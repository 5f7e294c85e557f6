"""GRAG's graph retrieval: the top-N ego-graphs by cosine similarity to the question.

The paper ranks all ego-graphs of the question's textual graph; its WebQSP graphs are each the
neighbourhood of the question's entities. On a whole KG the same setting is the ego-graphs
centred within `scope_hops` of the linked topic entities (`scope_hops=None`, or no topic entity,
ranks every ego-graph of the KG through a faiss index).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.grag.ego_index import EgoGraph, EgoIndex
from kgviz.reasoners.ranking import best_first


@dataclass
class Retrieved:
    """One retrieved ego-graph and its cosine similarity to the question."""

    ego: EgoGraph
    score: float


def candidate_centres(
    kg: KnowledgeGraph, topics: Sequence[int], scope_hops: int | None
) -> np.ndarray | None:
    """Ego-graph centres within `scope_hops` of the topics (None: every entity)."""
    if scope_hops is None or not topics:
        return None
    kg = kg.reach(topics, scope_hops)
    return np.flatnonzero(kg.distances_from(topics, scope_hops) >= 0)


def global_search(
    index: EgoIndex, question_vector: np.ndarray, top_n: int
) -> tuple[np.ndarray, np.ndarray]:
    """Top-N centres over the whole KG: L2 on unit vectors ranks as cosine (cos = 1 - d^2/2)."""
    distances, ids = index.vector_search.search(question_vector[None, :], top_n)
    keep = ids[0] >= 0
    return ids[0][keep], 1.0 - distances[0][keep] ** 2 / 2.0


def retrieve(
    index: EgoIndex,
    question_vector: np.ndarray,
    topics: Sequence[int],
    top_n: int,
    scope_hops: int | None,
) -> list[Retrieved]:
    """The `top_n` ego-graphs most similar to the question, best first."""
    centres = candidate_centres(index.kg, topics, scope_hops)
    if centres is None:
        ids, scores = global_search(index, question_vector, top_n)
    else:
        similarity = index.vectors_of(centres) @ question_vector
        order = best_first(similarity, index.kg.entity_rank[centres])[:top_n]
        ids, scores = centres[order], similarity[order]
    return [
        Retrieved(index.ego_graph(int(c), question_vector), float(s)) for c, s in zip(ids, scores)
    ]
