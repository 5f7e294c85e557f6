"""Top-k subgraph search by Graph Semantic Distance (SimGRAG, Section 5).

A match maps the pattern nodes injectively to KG entities and each pattern edge to one KG triple
joining the two mapped entities, in either direction, whose relation is in the edge's pool (any
relation when unknown). Its GSD is the sum of the pool distances of the known nodes and known
relations (unknown elements count 0). A subgraph is its node map (Def. 2): parallel KG triples
between the same two entities are alternatives inside one match, whose edge map is the closest
choice, so they never fill the top-k with near-duplicates. Parallel pattern edges must map to
distinct triples. A symmetric pattern can return the same triple set twice under two node maps.

Matches are ranked by the key `(gsd, nodes, edges)`, where `gsd` is the exactly rounded
`math.fsum` of the element distances, so every search returns the same list, ties included.
"""

from __future__ import annotations

import bisect
import itertools
import math
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.simgrag.pattern import CandidatePools, PatternGraph
from kgviz.reasoners.simgrag.search_tree import SearchTree

Status = Literal["complete", "node_budget", "time_limit"]
# Half-edges scanned (and turned into Python values) at a time, with the deadline checked
# between chunks, so that a hub with millions of neighbours cannot overrun a time limit.
SCAN_CHUNK = 1 << 15


def _rows_in_blocks(*columns: np.ndarray) -> Iterator[tuple[Any, ...]]:
    """The rows of parallel arrays as Python values, converted a block at a time (a loop that
    stops early, as pruning does, never converts the rest)."""
    for start in range(0, len(columns[0]), SCAN_CHUNK):
        yield from zip(*(column[start : start + SCAN_CHUNK].tolist() for column in columns))


DEFAULT_MAX_EXPANSIONS = 1_000_000
DEFAULT_TIME_LIMIT_S = 10.0
_BOUND_SLACK = 1e-9  # relative; the incremental bound may round above the exact GSD


@dataclass(frozen=True)
class Match:
    """A matched subgraph: entity per pattern node and triple row per pattern edge."""

    gsd: float
    nodes: tuple[int, ...]
    edges: tuple[int, ...]


@dataclass
class SearchResult:
    """Top-k matches by ascending GSD and how the search ended.

    `expanded` counts visited partial mappings (including start nodes and complete matches),
    `pruned` the candidate partial mappings discarded by the lower bound. Unless `status` is
    "complete", the matches are the best found before the budget or time limit stopped the search.
    """

    matches: list[Match]
    status: Status
    expanded: int
    pruned: int
    elapsed_s: float
    tree: SearchTree | None = None


@dataclass(frozen=True)
class Step:
    """One pattern edge in search order: from the mapped `src` to `dst` (mapped here if `new`).

    `siblings` are earlier steps' edges with the same endpoints, whose triples must differ.
    """

    edge: int
    src: int
    dst: int
    new: bool
    siblings: tuple[int, ...]


def search_order(
    pattern: PatternGraph, pools: CandidatePools, num_entities: int
) -> tuple[int, list[Step]]:
    """Algorithm 1, lines 1-3: the start node with the fewest candidates, edges in DFS order."""
    sizes = [num_entities if pool is None else len(pool) for pool in pools.nodes]
    start = min(range(pattern.num_nodes), key=lambda v: (sizes[v], v))
    touching = pattern.incident()
    steps: list[Step] = []
    listed: set[int] = set()
    seen = {start}

    def visit(node: int) -> None:
        for edge in touching[node]:
            if edge in listed:
                continue
            listed.add(edge)
            far = pattern.other(edge, node)
            pair = {node, far}
            siblings = tuple(s.edge for s in steps if set(pattern.edges[s.edge]) == pair)
            steps.append(Step(edge, node, far, far not in seen, siblings))
            if far not in seen:
                seen.add(far)
                visit(far)

    visit(start)
    return start, steps


class _Stop(Exception):
    def __init__(self, status: Status) -> None:
        super().__init__(status)
        self.status: Status = status


class _Search:
    """Depth-first expansion of the search order over the undirected CSR (`kg.adj`).

    With `prune` off this is Algorithm 1. With it on: start candidates and each step's candidate
    edges are tried in ascending distance (greedy), and a candidate whose bound
    `B = partial GSD + X + Y` exceeds the current k-th best GSD is discarded together with all
    later (costlier) siblings; X sums the minimum pool distance of each known node not yet mapped,
    Y that of each known relation of the edges not yet matched (Equations 9-11).
    """

    def __init__(
        self,
        kg: KnowledgeGraph,
        pattern: PatternGraph,
        pools: CandidatePools,
        k: int,
        prune: bool,
        max_expansions: int | None,
        time_limit_s: float | None,
        tree: SearchTree | None,
    ) -> None:
        self.began = time.monotonic()  # the per-query preparation below counts as search time
        if k < 1:
            raise ValueError("k must be at least 1")
        pools.check(pattern, kg.num_entities, kg.num_relations)
        self.k, self.prune, self.tree = k, prune, tree
        self.num_entities = kg.num_entities
        adj = kg.adj
        self.ptr, self.nbr, self.rel, self.row = adj.ptr, adj.neighbor, adj.relation, adj.edge
        self.start, self.steps = search_order(pattern, pools, kg.num_entities)
        self.start_pool = pools.nodes[self.start]
        self.node_lookup = [
            None if p is None else (np.sort(p.ids), p.distances[np.argsort(p.ids)])
            for p in pools.nodes
        ]
        self.rel_dist = [
            None if p is None else _relation_distances(p.ids, p.distances, kg.num_relations)
            for p in pools.relations
        ]
        self.rest = self._remaining_bounds(pools)
        self.ent = [-1] * pattern.num_nodes
        self.node_d = [0.0] * pattern.num_nodes
        self.erow = [-1] * len(pattern.edges)
        self.edge_d = [0.0] * len(pattern.edges)
        self.best: list[tuple[tuple[float, tuple[int, ...], tuple[int, ...]], int]] = []
        self.threshold = math.inf
        self.expanded = self.pruned = 0
        self.max_expansions = math.inf if max_expansions is None else max_expansions
        self.deadline = self.began + (math.inf if time_limit_s is None else time_limit_s)

    def _remaining_bounds(self, pools: CandidatePools) -> list[float]:
        """`rest[i]` = X + Y once the start node and the first `i` steps are matched."""
        node_min = [0.0 if p is None else p.min_distance for p in pools.nodes]
        edge_min = [0.0 if p is None else p.min_distance for p in pools.relations]
        unmapped = set(range(len(node_min))) - {self.start}
        rest = []
        for i in range(len(self.steps) + 1):
            rest.append(
                math.fsum(
                    [node_min[v] for v in unmapped] + [edge_min[s.edge] for s in self.steps[i:]]
                )
            )
            if i < len(self.steps):
                unmapped.discard(self.steps[i].dst)
        return rest

    def run(self) -> SearchResult:
        try:
            self._start()
            status: Status = "complete"
        except _Stop as stop:
            status = stop.status
        if self.tree is not None:
            for _, record in self.best:
                self.tree.mark(record, "in_topk")
        matches = [Match(*key) for key, _ in self.best]
        return SearchResult(
            matches, status, self.expanded, self.pruned, time.monotonic() - self.began, self.tree
        )

    # ----------------------------------------------------------------- the search
    def _start(self) -> None:
        """Algorithm 1, lines 6-7 (start candidates by ascending distance)."""
        pool, v = self.start_pool, self.start
        if pool is None:
            total = self.num_entities
            candidates: Iterable[tuple[int, float]] = ((e, 0.0) for e in range(total))
        else:
            total = len(pool)
            candidates = zip(pool.ids.tolist(), pool.distances.tolist())
        rest = self.rest[0]
        for index, (entity, dist) in enumerate(candidates):
            bound = dist + rest
            if self.prune and bound > self.threshold:
                self._discard(total - index, -1, 0, -1, v, entity, -1, dist, bound)
                return
            self._tick()
            record = self._record(-1, 0, -1, v, entity, -1, dist, bound)
            self.ent[v], self.node_d[v] = entity, dist
            self._expand(0, dist, record)

    def _expand(self, i: int, partial: float, record: int) -> None:
        """Algorithm 1, `Expand(i, f)`: match step `i` from the current partial mapping."""
        if i == len(self.steps):
            self._complete(record)
            return
        step = self.steps[i]
        found = self._candidates(step)
        if found is None:
            if self.tree is not None:
                self.tree.mark(record, "no_candidate")
            return
        nbr, rows, rel_d, node_d = found
        cost = rel_d + node_d
        if len(nbr) > SCAN_CHUNK:
            self._check_deadline()  # a hub's candidates: sorting them takes a while
        if self.prune:
            order = np.lexsort((rows, cost))
            nbr, rows, rel_d, node_d, cost = (a[order] for a in (nbr, rows, rel_d, node_d, cost))
        rest, total = self.rest[i + 1], len(nbr)
        dst, edge, new = step.dst, step.edge, step.new
        for index, (entity, row, r, d, c) in enumerate(
            _rows_in_blocks(nbr, rows, rel_d, node_d, cost)
        ):
            bound = partial + c + rest
            if self.prune and bound > self.threshold:
                self._discard(
                    total - index, record, i + 1, edge, dst, entity, row, partial + c, bound
                )
                break
            self._tick()
            child = self._record(record, i + 1, edge, dst, entity, row, partial + c, bound)
            if new:
                self.ent[dst], self.node_d[dst] = entity, d
            self.erow[edge], self.edge_d[edge] = row, r
            self._expand(i + 1, partial + c, child)
        if new:
            self.ent[dst] = -1

    def _candidates(self, step: Step) -> tuple[np.ndarray, ...] | None:
        """Half-edges of the mapped `src` that fit step `step`: neighbours, rows, distances. A
        hub's neighbourhood is scanned in chunks, with the deadline checked between them."""
        head = self.ent[step.src]
        lo, hi = int(self.ptr[head]), int(self.ptr[head + 1])
        if lo == hi:
            return None
        if hi - lo <= SCAN_CHUNK:
            return self._scan(step, lo, hi)
        parts = []
        for start in range(lo, hi, SCAN_CHUNK):
            self._check_deadline()
            part = self._scan(step, start, min(start + SCAN_CHUNK, hi))
            if part is not None:
                parts.append(part)
        if not parts:
            return None
        return tuple(np.concatenate(column) for column in zip(*parts))

    def _scan(self, step: Step, lo: int, hi: int) -> tuple[np.ndarray, ...] | None:
        """`_candidates` over the CSR slice `lo:hi`."""
        nbr, rows = self.nbr[lo:hi], self.row[lo:hi]
        rel_dist = self.rel_dist[step.edge]
        if rel_dist is None:
            rel_d, keep = np.zeros(hi - lo), np.ones(hi - lo, dtype=bool)
        else:
            rel_d = rel_dist[self.rel[lo:hi]]
            keep = rel_d < math.inf
        node_d = None
        if step.new:
            lookup = self.node_lookup[step.dst]
            if lookup is not None:
                ids, dists = lookup
                if len(ids) == 0:
                    return None
                at = np.minimum(np.searchsorted(ids, nbr), len(ids) - 1)
                keep &= ids[at] == nbr
                node_d = dists[at]
            for mapped in self.ent:
                if mapped >= 0:
                    keep &= nbr != mapped
        else:
            keep &= nbr == self.ent[step.dst]
            for sibling in step.siblings:
                keep &= rows != self.erow[sibling]
        idx = np.flatnonzero(keep)
        if len(idx) == 0:
            return None
        node_d = np.zeros(len(idx)) if node_d is None else node_d[idx]
        return nbr[idx], rows[idx], rel_d[idx], node_d

    def _complete(self, record: int) -> None:
        """Algorithm 1, lines 12-14: push a full match into the top-k, where a node map already
        there keeps only its better edge map. (Pruning stays exact: an edge map that would
        improve a kept node map scores below the k-th best, so no bound discards it.)"""
        key = (math.fsum(self.node_d + self.edge_d), tuple(self.ent), tuple(self.erow))
        if self.tree is not None:
            self.tree.mark(record, "completed")
        same = next((i for i, (kept, _) in enumerate(self.best) if kept[1] == key[1]), None)
        if same is not None:
            if key >= self.best[same][0]:
                return
            del self.best[same]
        elif len(self.best) == self.k and key >= self.best[-1][0]:
            return
        bisect.insort(self.best, (key, record), key=lambda entry: entry[0])
        if len(self.best) > self.k:
            self.best.pop()
        if len(self.best) == self.k:
            kth = self.best[-1][0][0]
            self.threshold = kth + _BOUND_SLACK * max(1.0, abs(kth))

    # ----------------------------------------------------------------- bookkeeping
    def _tick(self) -> None:
        if self.expanded >= self.max_expansions:
            raise _Stop("node_budget")
        self._check_deadline()
        self.expanded += 1

    def _check_deadline(self) -> None:
        if time.monotonic() >= self.deadline:
            raise _Stop("time_limit")

    def _record(
        self,
        parent: int,
        depth: int,
        edge: int,
        node: int,
        entity: int,
        row: int,
        partial: float,
        bound: float,
    ) -> int:
        if self.tree is None:
            return -1
        return self.tree.add(parent, depth, edge, node, entity, row, partial, bound)

    def _discard(
        self,
        count: int,
        parent: int,
        depth: int,
        edge: int,
        node: int,
        entity: int,
        row: int,
        partial: float,
        bound: float,
    ) -> None:
        """Prune the `count` remaining siblings, of which the first (best) one is given."""
        self.pruned += count
        if self.tree is not None:
            self.tree.add(
                parent, depth, edge, node, entity, row, partial, bound, "pruned_bound", count
            )


def _relation_distances(ids: np.ndarray, distances: np.ndarray, num_relations: int) -> np.ndarray:
    """Distance per relation id (inf outside the pool)."""
    table = np.full(num_relations, math.inf)
    table[ids] = distances
    return table


def algorithm1_topk(
    kg: KnowledgeGraph,
    pattern: PatternGraph,
    pools: CandidatePools,
    k: int = 3,
    *,
    max_expansions: int | None = DEFAULT_MAX_EXPANSIONS,
    time_limit_s: float | None = DEFAULT_TIME_LIMIT_S,
) -> SearchResult:
    """The paper's Algorithm 1: DFS over all candidate mappings, only a top-k check at leaves."""
    return _Search(kg, pattern, pools, k, False, max_expansions, time_limit_s, None).run()


def optimized_topk(
    kg: KnowledgeGraph,
    pattern: PatternGraph,
    pools: CandidatePools,
    k: int = 3,
    *,
    max_expansions: int | None = DEFAULT_MAX_EXPANSIONS,
    time_limit_s: float | None = DEFAULT_TIME_LIMIT_S,
    record_tree: bool = False,
    max_tree_nodes: int = 10_000,
) -> SearchResult:
    """The paper's optimized retrieval (Section 5.2): greedy order and X+Y lower-bound pruning.

    With `record_tree`, the result carries the search tree (at most `max_tree_nodes` records).
    """
    tree = SearchTree(max_tree_nodes) if record_tree else None
    return _Search(kg, pattern, pools, k, True, max_expansions, time_limit_s, tree).run()


def brute_force_topk(
    kg: KnowledgeGraph, pattern: PatternGraph, pools: CandidatePools, k: int = 3
) -> SearchResult:
    """Reference enumeration of every node assignment and edge choice (tiny graphs only)."""
    began = time.monotonic()
    if k < 1:
        raise ValueError("k must be at least 1")
    pools.check(pattern, kg.num_entities, kg.num_relations)
    node_choices = [
        [(e, 0.0) for e in range(kg.num_entities)]
        if p is None
        else list(zip(p.ids.tolist(), p.distances.tolist()))
        for p in pools.nodes
    ]
    rel_dist = [
        None if p is None else dict(zip(p.ids.tolist(), p.distances.tolist()))
        for p in pools.relations
    ]
    links: dict[frozenset[int], list[tuple[int, int]]] = {}
    for row, (head, relation, tail) in enumerate(kg.triples.tolist()):
        links.setdefault(frozenset((head, tail)), []).append((row, relation))
    keys = []
    assignments = 0
    for combo in itertools.product(*node_choices):
        assignments += 1
        nodes = tuple(entity for entity, _ in combo)
        if len(set(nodes)) < len(nodes):
            continue
        options = []
        for edge, (u, v) in enumerate(pattern.edges):
            table = rel_dist[edge]
            options.append(
                [
                    (row, 0.0 if table is None else table[relation])
                    for row, relation in links.get(frozenset((nodes[u], nodes[v])), [])
                    if table is None or relation in table
                ]
            )
        for chosen in itertools.product(*options):
            edges = tuple(row for row, _ in chosen)
            if len(set(edges)) == len(edges):
                gsd = math.fsum([d for _, d in combo] + [d for _, d in chosen])
                keys.append((gsd, nodes, edges))
    keys.sort()
    best: dict[tuple[int, ...], tuple[float, tuple[int, ...], tuple[int, ...]]] = {}
    for key in keys:  # each node map with its best edge map, best first
        best.setdefault(key[1], key)
    return SearchResult(
        [Match(*key) for key in list(best.values())[:k]],
        "complete",
        assignments,
        0,
        time.monotonic() - began,
    )
