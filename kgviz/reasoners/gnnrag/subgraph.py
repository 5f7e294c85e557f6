"""The dense subgraph a GNN reasons over: the k-hop neighbourhood of the topic entities, pruned to
the nodes with the highest personalized PageRank from them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from kgviz.kg.graph import KnowledgeGraph


@dataclass
class DenseSubgraph:
    """Kept `nodes` (KG ids, topic entities first, then by PageRank, then name) with their `ppr`
    scores, the triple rows among them (`edges`) and `local` `(m, 3)` rows `[head, relation,
    tail]` in positions of `nodes`; `khop_nodes` / `khop_edges` are the sizes before pruning."""

    nodes: np.ndarray
    ppr: np.ndarray
    edges: np.ndarray
    local: np.ndarray
    topics: np.ndarray
    khop_nodes: int
    khop_edges: int

    @property
    def num_nodes(self) -> int:
        return len(self.nodes)


def personalized_pagerank(
    num_nodes: int,
    heads: np.ndarray,
    tails: np.ndarray,
    seeds: np.ndarray,
    alpha: float = 0.15,
    iterations: int = 30,
    tol: float = 1e-7,
) -> np.ndarray:
    """PageRank restarting at `seeds` (uniformly) with probability `alpha`, walking triples in
    both directions; dangling mass returns to the seeds. Power iteration on a sparse matrix."""
    rows = np.concatenate([heads, tails])
    cols = np.concatenate([tails, heads])
    degree = np.bincount(rows, minlength=num_nodes).astype(np.float64)
    weights = 1.0 / degree[rows]
    walk = sp.csr_matrix((weights, (cols, rows)), shape=(num_nodes, num_nodes))  # column-stochastic
    restart = np.zeros(num_nodes)
    restart[seeds] = 1.0 / len(seeds)
    score = restart.copy()
    for _ in range(iterations):
        moved = walk @ score
        dangling = score[degree == 0].sum()
        updated = (1 - alpha) * (moved + dangling * restart) + alpha * restart
        done = np.abs(updated - score).sum() < tol
        score = updated
        if done:
            break
    return score


def dense_subgraph(
    kg: KnowledgeGraph, topics: list[int], hops: int, max_nodes: int, alpha: float = 0.15
) -> DenseSubgraph:
    """Nodes within `hops` of `topics`, cut to `max_nodes` by PageRank personalised on `topics`
    (topic entities always kept), with every triple among the kept nodes."""
    seeds = np.unique(np.asarray(topics, dtype=np.int64))
    kg = kg.reach(seeds.tolist(), hops)
    nodes, edges = kg.k_hop_subgraph(seeds.tolist(), hops)
    position = np.full(kg.num_entities, -1, dtype=np.int64)
    position[nodes] = np.arange(len(nodes))
    rows = kg.triples[edges]
    ppr = personalized_pagerank(
        len(nodes), position[rows[:, 0]], position[rows[:, 2]], position[seeds], alpha
    )
    is_topic = np.zeros(len(nodes), dtype=bool)
    is_topic[position[seeds]] = True
    # ties in PageRank (to float noise) go by name: the same however the KG numbers its entities
    by_rank = (kg.entity_rank[nodes], -np.round(ppr, 12), ~is_topic)
    order = np.lexsort(by_rank)[: max(max_nodes, len(seeds))]
    kept = nodes[order]
    position[:] = -1
    position[kept] = np.arange(len(kept))
    inside = (position[rows[:, 0]] >= 0) & (position[rows[:, 2]] >= 0)
    kept_edges, kept_rows = edges[inside], rows[inside]
    local = np.stack(
        [position[kept_rows[:, 0]], kept_rows[:, 1], position[kept_rows[:, 2]]], axis=1
    )
    return DenseSubgraph(
        kept, ppr[order], kept_edges, local.astype(np.int64), seeds, len(nodes), len(edges)
    )
