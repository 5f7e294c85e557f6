"""Shared by the SimGRAG search benchmarks: a synthetic KG generator, random walks on it, and
path patterns with candidate pools built without an embedding model.

A known node's pool is the exact entity (distance 0) plus random others at increasing distances;
a relation's pool is the true relation first, then others (k(n) = k(r) = POOL_SIZE at most).
"""

from __future__ import annotations

import numpy as np

from kgviz.kg.graph import KnowledgeGraph
from kgviz.kg.vocab import Vocabulary
from kgviz.reasoners.simgrag.search_input import PatternGraph, SearchPool, SearchPools

K, POOL_SIZE = 3, 16
EDGES_PER_ENTITY = 7


def synthetic_parts(
    num_edges: int, rng: np.random.Generator, num_relations: int = 64
) -> tuple[Vocabulary, Vocabulary, np.ndarray]:
    """Entity and relation vocabularies and `(num_edges, 3)` int32 random triples.

    num_edges / 7 entities; relations uniform; heads uniform; 10% of tails go to 1000 hub
    entities, the rest uniform (a skewed in-degree). Pass them to `KnowledgeGraph(...)`.
    """
    num_entities = num_edges // EDGES_PER_ENTITY
    heads = rng.integers(0, num_entities, num_edges, dtype=np.int32)
    tails = rng.integers(0, num_entities, num_edges, dtype=np.int32)
    hub = rng.random(num_edges) < 0.1
    tails[hub] = rng.integers(0, 1000, int(hub.sum()), dtype=np.int32)
    rels = rng.integers(0, num_relations, num_edges, dtype=np.int32)
    triples = np.stack([heads, rels, tails], axis=1)
    entities = Vocabulary((f"entity {i}" for i in range(num_entities)), kind="entity")
    relations = Vocabulary((f"relation {i}" for i in range(num_relations)), kind="relation")
    return entities, relations, triples


def random_walk(kg: KnowledgeGraph, rng: np.random.Generator, hops: int) -> tuple[int, list[int]]:
    """A start entity and the relations along a random undirected walk of `hops` edges."""
    while True:
        start = node = int(rng.integers(kg.num_entities))
        relations, seen = [], {node}
        for _ in range(hops):
            span = kg.adj.span(node)
            if span.stop == span.start:
                break
            at = int(rng.integers(span.start, span.stop))
            node = int(kg.adj.neighbor[at])
            if node in seen:
                break
            seen.add(node)
            relations.append(int(kg.adj.relation[at]))
        if len(relations) == hops:
            return start, relations


def path_pattern(hops: int) -> PatternGraph:
    return PatternGraph(hops + 1, tuple((i, i + 1) for i in range(hops)))


def entity_pool(rng: np.random.Generator, exact: int | None, num_entities: int) -> SearchPool:
    """The exact entity at distance 0 (if given) plus random others at increasing distances."""
    others = rng.choice(num_entities, POOL_SIZE, replace=False)
    others = others[others != exact][: POOL_SIZE - (exact is not None)]
    dists = np.sort(rng.uniform(0.3, 1.2, len(others)))
    if exact is None:
        return SearchPool(others, dists)
    return SearchPool(np.concatenate([[exact], others]), np.concatenate([[0.0], dists]))


def relation_pool(rng: np.random.Generator, true: int, num_relations: int) -> SearchPool:
    """The true relation first (0.2), then up to 15 others at increasing distances."""
    others = rng.permutation(np.setdiff1d(np.arange(num_relations), [true]))[: POOL_SIZE - 1]
    dists = np.concatenate([[0.2], np.sort(rng.uniform(0.4, 1.0, len(others)))])
    return SearchPool(np.concatenate([[true], others]), dists)


def path_pools(
    rng: np.random.Generator, kg: KnowledgeGraph, topic: int | None, relations: list[int]
) -> SearchPools:
    """Pools of a path pattern: node 0 is the topic (`None`: missing from its pool), the rest
    unknown; one pool per relation along the path."""
    nodes = (entity_pool(rng, topic, kg.num_entities),) + (None,) * len(relations)
    return SearchPools(nodes, tuple(relation_pool(rng, r, kg.num_relations) for r in relations))
