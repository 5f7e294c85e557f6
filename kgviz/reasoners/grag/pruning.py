"""Soft pruning of retrieved ego-graphs: a gate value per node and edge, and the triples kept.

A triple's score is the mean gate of its edge and its two end nodes. The gate orders, the budget
cuts: triples are kept best score first while their description fits a token budget, so a
question whose gate is unsure still sees its best triples instead of none. (The mean ranks the
weak labels far better than the minimum: edges are gated by relation text alone, so every edge
of the asked relation shares one value, and node gates separate the entities.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.grag.ego_index import EgoIndex
from kgviz.reasoners.grag.gate import SoftPruner
from kgviz.reasoners.grag.records import GatedEdge, GatedNode, PrunedEgoGraph
from kgviz.reasoners.grag.retrieval import Retrieved


def gate_elements(
    pruner: SoftPruner,
    index: EgoIndex,
    question_vector: np.ndarray,
    nodes: np.ndarray,
    edges: np.ndarray,
) -> tuple[dict[int, float], np.ndarray]:
    """Gate value of each node (by id) and of each edge row (in `edges` order)."""
    relations = index.kg.triples[edges, 1]
    node_p, edge_p = pruner.probabilities(
        question_vector, index.node_vectors[nodes], index.relation_vectors[relations]
    )
    return dict(zip(nodes.tolist(), node_p.tolist())), edge_p


def triple_scores(
    kg_triples: np.ndarray, node_gate: dict[int, float], edge_gate: np.ndarray
) -> np.ndarray:
    """Mean of the edge, head and tail gates per triple row."""
    heads = np.array([node_gate[h] for h in kg_triples[:, 0].tolist()], dtype=np.float32)
    tails = np.array([node_gate[t] for t in kg_triples[:, 2].tolist()], dtype=np.float32)
    return (edge_gate + heads + tails) / 3.0


CHARS_PER_TOKEN = 4  # English text under a BPE tokenizer, roughly
LINE_CHARS = 14  # a description line's indent, marker, brackets, quotes and commas


def triple_tokens(kg: KnowledgeGraph, rows: np.ndarray) -> np.ndarray:
    """Estimated tokens of each triple row's line in the description (`describe_graph`)."""
    chars = [sum(map(len, kg.triple_names(int(row)))) + LINE_CHARS for row in rows.tolist()]
    return np.array([math.ceil(c / CHARS_PER_TOKEN) for c in chars], dtype=np.int64)


def keep_within_budget(scores: np.ndarray, tokens: np.ndarray, budget: int) -> np.ndarray:
    """The best-scoring triples whose lines fit `budget` tokens together: a prefix of the gate
    order (the first triple that would overflow ends it)."""
    order = np.argsort(-scores, kind="stable")
    fitting = int((np.cumsum(tokens[order]) <= budget).sum())  # tokens > 0: a prefix
    mask = np.zeros(len(scores), dtype=bool)
    mask[order[:fitting]] = True
    return mask


def prune(
    pruner: SoftPruner,
    index: EgoIndex,
    question_vector: np.ndarray,
    retrieved: Sequence[Retrieved],
    budget: int,
) -> list[PrunedEgoGraph]:
    """Gate every node and edge of the retrieved ego-graphs once, and keep the best triples
    within `budget` description tokens."""
    kg = index.kg
    nodes = np.unique(np.concatenate([r.ego.nodes for r in retrieved]))
    # in name order, so that ties in the gate keep the same triples however the KG numbers them
    edges = kg.rows_by_name(np.unique(np.concatenate([r.ego.edges for r in retrieved])))
    node_gate, edge_p = gate_elements(pruner, index, question_vector, nodes, edges)
    scores = triple_scores(kg.triples[edges], node_gate, edge_p)
    kept = keep_within_budget(scores, triple_tokens(kg, edges), budget)
    by_edge = {
        e: (round(g, 4), round(float(s), 4), k)
        for e, g, s, k in zip(edges.tolist(), edge_p.tolist(), scores.tolist(), kept.tolist())
    }
    described = set(kg.triples[edges[kept]][:, [0, 2]].ravel().tolist())
    return [
        PrunedEgoGraph(
            kg.entities[item.ego.centre],
            budget,
            [
                GatedNode(kg.entities[n], round(node_gate[n], 4), n in described)
                for n in kg.entities_by_name(item.ego.nodes).tolist()
            ],
            [
                GatedEdge(*kg.triple_names(e), *by_edge[e])
                for e in kg.rows_by_name(item.ego.edges).tolist()
            ],
        )
        for item in retrieved
    ]
