"""What the top-k subgraph search takes: a pattern graph of numbered nodes (no texts) and the
candidate pool of each of its nodes and edges as KG ids with distances.

The reasoner makes them per searched component of a `QueryPattern` (the LLM's pattern, with its
texts) from the recorded `PatternPools` (`pools.py`, the named candidates the trace keeps)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class PatternGraph:
    """A connected pattern: nodes `0..num_nodes-1` and edges `(u, v)`; direction is ignored.

    Parallel edges are allowed (each must then map to a distinct KG triple); self-loops are not.
    """

    num_nodes: int
    edges: tuple[tuple[int, int], ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "edges", tuple((int(u), int(v)) for u, v in self.edges))
        if self.num_nodes < 1:
            raise ValueError("a pattern needs at least one node")
        for u, v in self.edges:
            if not (0 <= u < self.num_nodes and 0 <= v < self.num_nodes):
                raise ValueError(f"pattern edge {(u, v)} has an endpoint out of range")
            if u == v:
                raise ValueError(f"pattern edge {(u, v)} is a self-loop")
        if len(self._reachable(0)) != self.num_nodes:
            raise ValueError("the pattern graph is not connected")

    def incident(self) -> list[list[int]]:
        """Edge indices touching each node, in edge order."""
        touching: list[list[int]] = [[] for _ in range(self.num_nodes)]
        for index, (u, v) in enumerate(self.edges):
            touching[u].append(index)
            touching[v].append(index)
        return touching

    def other(self, edge: int, node: int) -> int:
        u, v = self.edges[edge]
        return v if node == u else u

    def _reachable(self, start: int) -> set[int]:
        touching, seen, stack = self.incident(), {start}, [start]
        while stack:
            node = stack.pop()
            for edge in touching[node]:
                nxt = self.other(edge, node)
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        return seen


@dataclass(frozen=True)
class SearchPool:
    """The search's candidates of one known pattern element: KG ids and their (L2) distances.

    Normalised on creation: duplicate ids keep their smallest distance, and the pool is sorted by
    `(distance, id)`, which is the greedy order the optimized search uses. `id_range` is the
    smallest and largest id ((0, -1) when empty), read off the sort by id on the way, so range
    checks need no pass over the ids.
    """

    ids: np.ndarray
    distances: np.ndarray
    id_range: tuple[int, int] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        ids = np.asarray(self.ids, dtype=np.int64).ravel()
        dists = np.asarray(self.distances, dtype=np.float64).ravel()
        if ids.shape != dists.shape:
            raise ValueError("a pool needs one distance per id")
        if not np.all(np.isfinite(dists)):
            raise ValueError("pool distances must be finite")
        order = np.lexsort((dists, ids))  # by id, then distance: the first of each id is its best
        ids, dists = ids[order], dists[order]
        first = np.ones(len(ids), dtype=bool)
        first[1:] = ids[1:] != ids[:-1]
        ids, dists = ids[first], dists[first]
        object.__setattr__(self, "id_range", (int(ids[0]), int(ids[-1])) if len(ids) else (0, -1))
        order = np.lexsort((ids, dists))
        object.__setattr__(self, "ids", ids[order])
        object.__setattr__(self, "distances", dists[order])

    def __len__(self) -> int:
        return len(self.ids)


PoolLike = SearchPool | tuple[Sequence[int] | np.ndarray, Sequence[float] | np.ndarray] | None


def as_pool(pool: PoolLike) -> SearchPool | None:
    """`None` (unknown: anything at distance 0), a `SearchPool`, or an `(ids, distances)` pair."""
    if pool is None or isinstance(pool, SearchPool):
        return pool
    ids, distances = pool
    return SearchPool(np.asarray(ids), np.asarray(distances))


@dataclass(frozen=True)
class SearchPools:
    """The search's pool per pattern node (`nodes`) and per pattern edge (`relations`); `None` =
    unknown."""

    nodes: tuple[SearchPool | None, ...]
    relations: tuple[SearchPool | None, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "nodes", tuple(as_pool(p) for p in self.nodes))
        object.__setattr__(self, "relations", tuple(as_pool(p) for p in self.relations))

    def check(self, pattern: PatternGraph, num_entities: int, num_relations: int) -> None:
        """Raise `ValueError` unless the pools fit `pattern` and ids are in range."""
        if len(self.nodes) != pattern.num_nodes or len(self.relations) != len(pattern.edges):
            raise ValueError("need one node pool per pattern node and one per pattern edge")
        for kind, pools, bound in (
            ("entity", self.nodes, num_entities),
            ("relation", self.relations, num_relations),
        ):
            for pool in pools:
                if pool is not None and (pool.id_range[0] < 0 or pool.id_range[1] >= bound):
                    raise ValueError(f"{kind} pool has ids outside 0..{bound - 1}")
