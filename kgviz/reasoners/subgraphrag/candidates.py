"""The rough subgraph SubgraphRAG scores: triples within `hops` undirected steps of the topic
entities, grown layer by layer under a cap on the number of triples, not walking through hubs."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kgviz.kg.graph import KnowledgeGraph


@dataclass
class Candidates:
    """Candidate triple rows (sorted) and the hop each was reached at (1 = touches a topic entity).

    Hubs (degree above `max_degree`, such as a genre or a year) are reached but not walked
    through unless they are topic entities; `hubs` lists those met as `(entity, degree)`. When
    the cap bites, the last layer's frontier is expanded from its lowest-degree nodes up;
    `unexpanded` are the frontier nodes left out, with their degree, and `cut` counts the
    triples that layer would have added beyond those kept.
    """

    edges: np.ndarray
    hops: np.ndarray
    full_layers: int
    hubs: list[tuple[int, int]] = field(default_factory=list)
    unexpanded: list[tuple[int, int]] = field(default_factory=list)
    cut: int = 0


def collect_candidates(
    kg: KnowledgeGraph,
    seeds: list[int],
    hops: int,
    max_candidates: int,
    max_degree: int | None = None,
) -> Candidates:
    """Breadth-first layers of triples around `seeds`, at most `max_candidates` of them."""
    kg = kg.reach(seeds, hops, hub_degree=max_degree)
    edge_hop = np.zeros(kg.num_triples, dtype=np.int16)  # 0 = not a candidate
    seen = np.zeros(kg.num_entities, dtype=bool)
    frontier = np.unique(np.asarray(seeds, dtype=np.int64))
    seen[frontier] = True
    taken, full_layers, cut = 0, 0, 0
    hubs: list[tuple[int, int]] = []
    unexpanded: list[tuple[int, int]] = []
    for hop in range(1, hops + 1):
        if hop > 1 and max_degree is not None:
            degree = kg.degrees(frontier)
            is_hub = degree > max_degree
            hubs += zip(frontier[is_hub].tolist(), degree[is_hub].tolist())
            frontier = frontier[~is_hub]
        if frontier.size == 0:
            break
        layer = _new_edges(kg, frontier, edge_hop)
        if taken + layer.size <= max_candidates:
            full_layers += 1
        else:  # lowest degree first, ties by name (the same however entities are numbered)
            degree = kg.degrees(frontier)
            order = np.lexsort((kg.entity_rank[frontier], degree))
            frontier, degree = frontier[order], degree[order]
            fits = np.cumsum(degree) <= max_candidates - taken  # degree bounds new rows
            left = frontier[~fits]
            partial = _new_edges(kg, frontier[fits], edge_hop)
            unexpanded = list(zip(left.tolist(), degree[~fits].tolist()))
            cut = int(layer.size - partial.size)
            layer = partial
        edge_hop[layer] = hop
        taken += layer.size
        ends = kg.triples[layer][:, [0, 2]].ravel()
        fresh = np.unique(ends[~seen[ends]])
        seen[fresh] = True
        if unexpanded:
            break
        frontier = fresh
    edges = np.flatnonzero(edge_hop)
    return Candidates(edges, edge_hop[edges].astype(np.int64), full_layers, hubs, unexpanded, cut)


def _new_edges(kg: KnowledgeGraph, nodes: np.ndarray, edge_hop: np.ndarray) -> np.ndarray:
    """Triple rows touching `nodes` that no earlier layer took."""
    if nodes.size == 0:
        return np.zeros(0, dtype=np.int64)
    ptr = kg.adj.ptr
    rows = np.unique(np.concatenate([kg.adj.edge[ptr[u] : ptr[u + 1]] for u in nodes.tolist()]))
    return rows[edge_hop[rows] == 0]
