"""Top-k subgraph search by Graph Semantic Distance (SimGRAG, Section 5).

A match maps the pattern nodes injectively to KG entities and each pattern edge to one KG triple
joining the two mapped entities, in either direction, whose relation is in the edge's pool (any
relation when unknown). Its GSD is the sum of the pool distances of the known nodes and known
relations (unknown elements count 0). A subgraph is its node map (Def. 2): parallel KG triples
between the same two entities are alternatives inside one match, whose edge map is the closest
choice, so they never fill the top-k with near-duplicates. Parallel pattern edges must map to
distinct triples. A symmetric pattern can return the same triple set twice under two node maps.

Matches are ranked by GSD, the exactly rounded `math.fsum` of the element distances, then by the
names of their entities and triples (`match_rank`), so every search returns the same list, ties
included, however the KG numbers its entities.
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
from kgviz.reasoners.simgrag.greedy_order import greedy_blocks
from kgviz.reasoners.simgrag.search_input import PatternGraph, SearchPool, SearchPools
from kgviz.reasoners.simgrag.search_order import Step, search_order
from kgviz.reasoners.simgrag.search_reach import reach_for_search
from kgviz.reasoners.simgrag.search_tree import SearchTree

Status = Literal["complete", "node_budget", "time_limit"]
# Half-edges scanned (and turned into Python values) at a time, with the deadline checked
# between chunks, so that a hub with millions of neighbours cannot overrun a time limit.
SCAN_CHUNK = 1 << 15
# Neighbourhoods up to this many half-edges are filtered in plain Python (numpy's per-call
# overhead dominates there); larger ones (hubs) with numpy, a chunk at a time.
SMALL_DEGREE = 256
# A candidate for a step: (cost, KG triple row, entity, relation distance, node distance), whose
# tuple order is the greedy order (cost, then row).
Candidate = tuple[float, int, int, float, float]


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


# A pool as Python lists, ids and distances in greedy order; None when unknown.
Listed = tuple[list[int], list[float]] | None


def _listed(pool: SearchPool | None) -> Listed:
    """A pool's columns as Python lists: the one numpy step of a search's preparation (numpy
    calls are slow the first time, with cold caches, as a question's search starts)."""
    return None if pool is None else (pool.ids.tolist(), pool.distances.tolist())


def _distances(listed: Listed) -> dict[int, float] | None:
    return None if listed is None else dict(zip(*listed))


def _least(listed: Listed) -> float:
    """The smallest distance (0 for an unknown or empty pool; an empty one admits no match)."""
    return listed[1][0] if listed is not None and listed[1] else 0.0


def _remaining_bounds(nodes: list[Listed], relations: list[Listed], steps: tuple[Step, ...]):
    """`rest[i]` = X + Y once the start node and the first `i` steps are matched: the minimum
    distances of the nodes the later steps map and of their relations."""
    terms: list[float] = []
    for step in steps:
        terms.append(_least(nodes[step.dst]) if step.new else 0.0)
        terms.append(_least(relations[step.edge]))
    return [math.fsum(terms[2 * i :]) for i in range(len(steps) + 1)]


Rank = tuple[float, tuple[str, ...], tuple[tuple[str, str], ...]]


def match_rank(key: tuple[float, tuple[int, ...], tuple[int, ...]], kg: KnowledgeGraph) -> Rank:
    """How a match `(gsd, entities, rows)` ranks: by GSD, ties by the names of its entities, then
    of its triples' relations and heads. Names, not ids, so that the top-k is the same however the
    KG numbers its entities (a file's order, an endpoint's)."""
    gsd, entities, rows = key
    names, relations, triples = kg.entities, kg.relations, kg.triples
    return (
        gsd,
        tuple(names[e] for e in entities),
        tuple((relations[triples[r, 1]], names[triples[r, 0]]) for r in rows),
    )


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
        pools: SearchPools,
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
        self.pools, self.num_entities, self.num_relations = pools, kg.num_entities, kg.num_relations
        self.start, self.steps = search_order(pattern, pools, kg.stored_entities)
        fetching = time.monotonic()
        kg = reach_for_search(kg, self.start, self.steps, pools)
        self.began += time.monotonic() - fetching  # what an endpoint takes is not search time
        adj = kg.adj
        self.ptr, self.nbr, self.rel, self.row = adj.ptr, adj.neighbor, adj.relation, adj.edge
        if tree is not None:
            tree.steps = [(step.edge, step.src, step.dst) for step in self.steps]
        nodes = [_listed(p) for p in pools.nodes]
        relations = [_listed(p) for p in pools.relations]
        self.start_pool = nodes[self.start]
        # Pool distances by id, for the steps that map a node or match a relation.
        self.node_dist = [None if v == self.start else _distances(p) for v, p in enumerate(nodes)]
        self.rel_dist = [_distances(p) for p in relations]
        self.hub_tables: dict[int, tuple[np.ndarray | None, np.ndarray | None, np.ndarray]] = {}
        self.rest = _remaining_bounds(nodes, relations, self.steps)
        self.ent = [-1] * pattern.num_nodes
        self.node_d = [0.0] * pattern.num_nodes
        self.erow = [-1] * len(pattern.edges)
        self.edge_d = [0.0] * len(pattern.edges)
        # (rank, (gsd, entities, rows), tree record), by rank: see `match_rank`
        self.best: list[tuple[Rank, tuple[float, tuple[int, ...], tuple[int, ...]], int]] = []
        self.kg = kg
        self.threshold = math.inf
        self.expanded = self.pruned = 0
        self.max_expansions = math.inf if max_expansions is None else max_expansions
        self.deadline = self.began + (math.inf if time_limit_s is None else time_limit_s)

    def run(self) -> SearchResult:
        try:
            self._start()
            status: Status = "complete"
        except _Stop as stop:
            status = stop.status
        seconds = time.monotonic() - self.began
        if self.tree is not None:
            for _, _, record in self.best:
                self.tree.mark(record, "in_topk")
            _name_tree(self.tree, self.kg)
        matches = [Match(*key) for _, key, _ in self.best]
        return SearchResult(matches, status, self.expanded, self.pruned, seconds, self.tree)

    # ----------------------------------------------------------------- the search
    def _start(self) -> None:
        """Algorithm 1, lines 6-7 (start candidates by ascending distance)."""
        pool, v = self.start_pool, self.start
        if pool is None:
            total = self.num_entities
            candidates: Iterable[tuple[int, float]] = ((e, 0.0) for e in range(total))
        else:
            total = len(pool[0])
            candidates = zip(*pool)
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
        total, candidates = self._candidates(step)
        if total == 0:
            if self.tree is not None:
                self.tree.mark(record, "no_candidate")
            return
        rest, dst, edge, new = self.rest[i + 1], step.dst, step.edge, step.new
        for index, (cost, row, entity, r, d) in enumerate(candidates):
            bound = partial + cost + rest
            if self.prune and bound > self.threshold:
                self._discard(
                    total - index, record, i + 1, edge, dst, entity, row, partial + cost, bound
                )
                break
            self._tick()
            child = self._record(record, i + 1, edge, dst, entity, row, partial + cost, bound)
            if new:
                self.ent[dst], self.node_d[dst] = entity, d
            self.erow[edge], self.edge_d[edge] = row, r
            self._expand(i + 1, partial + cost, child)
        if new:
            self.ent[dst] = -1

    def _candidates(self, step: Step) -> tuple[int, Iterable[Candidate]]:
        """How many half-edges of the mapped `src` fit step `step`, and those candidates (in
        greedy order when pruning)."""
        head = self.ent[step.src]
        lo, hi = self.ptr[head : head + 2].tolist()
        if hi - lo > SMALL_DEGREE:
            return self._hub_candidates(step, lo, hi)
        found = self._small_candidates(step, lo, hi)
        if self.prune:
            found.sort()
        return len(found), found

    def _small_candidates(self, step: Step, lo: int, hi: int) -> list[Candidate]:
        """`_candidates` over a small CSR slice `lo:hi`, in plain Python."""
        rel_dist, ent = self.rel_dist[step.edge], self.ent
        half_edges = zip(
            self.nbr[lo:hi].tolist(), self.rel[lo:hi].tolist(), self.row[lo:hi].tolist()
        )
        found: list[Candidate] = []
        if step.new:
            node_dist = self.node_dist[step.dst]
            for entity, relation, row in half_edges:
                r = 0.0 if rel_dist is None else rel_dist.get(relation)
                d = 0.0 if node_dist is None else node_dist.get(entity)
                if r is not None and d is not None and entity not in ent:
                    found.append((r + d, row, entity, r, d))
        else:
            target, taken = ent[step.dst], [self.erow[s] for s in step.siblings]
            for entity, relation, row in half_edges:
                r = 0.0 if rel_dist is None else rel_dist.get(relation)
                if entity == target and r is not None and row not in taken:
                    found.append((r, row, entity, r, 0.0))
        return found

    def _hub_candidates(self, step: Step, lo: int, hi: int) -> tuple[int, Iterator[Candidate]]:
        """`_candidates` of a hub with numpy, scanned in chunks and (when pruning) put in greedy
        order a block at a time (`greedy_blocks`), the deadline checked between chunks; the
        candidates become Python values a block at a time as the loop asks for them."""
        parts = []
        for start in range(lo, hi, SCAN_CHUNK):
            self._check_deadline()
            part = self._scan(step, start, min(start + SCAN_CHUNK, hi))
            if part is not None:
                parts.append(part)
        if not parts:
            return 0, iter(())
        self._check_deadline()
        columns = [np.concatenate(column) for column in zip(*parts)]
        if not self.prune:
            return len(columns[0]), _rows_in_blocks(*columns)
        blocks = greedy_blocks(columns[0], columns[1], self._check_deadline)
        return len(columns[0]), (
            candidate
            for block in blocks
            for candidate in _rows_in_blocks(*(column[block] for column in columns))
        )

    def _scan(self, step: Step, lo: int, hi: int) -> tuple[np.ndarray, ...] | None:
        """The candidate columns (see `Candidate`) of the CSR slice `lo:hi`, None if none fit."""
        nbr, rows = self.nbr[lo:hi], self.row[lo:hi]
        rel_table, node_ids, node_dists = self._hub_tables(step)
        if rel_table is None:
            rel_d, keep = np.zeros(hi - lo), np.ones(hi - lo, dtype=bool)
        else:
            rel_d = rel_table[self.rel[lo:hi]]
            keep = rel_d < math.inf
        node_d = None
        if step.new:
            if node_ids is not None:
                if len(node_ids) == 0:
                    return None
                at = np.minimum(np.searchsorted(node_ids, nbr), len(node_ids) - 1)
                keep &= node_ids[at] == nbr
                node_d = node_dists[at]
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
        return rel_d[idx] + node_d, rows[idx], nbr[idx], rel_d[idx], node_d

    def _hub_tables(self, step: Step) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray]:
        """The step's relation-distance table and its node pool sorted by id (ids, distances),
        None where unknown; built on a step's first hub."""
        if step.edge not in self.hub_tables:
            relations, node = self.pools.relations[step.edge], self.pools.nodes[step.dst]
            table = None
            if relations is not None:
                table = np.full(self.num_relations, math.inf)
                table[relations.ids] = relations.distances
            ids, dists = None, np.zeros(0)
            if node is not None and step.new:
                order = np.argsort(node.ids)
                ids, dists = node.ids[order], node.distances[order]
            self.hub_tables[step.edge] = (table, ids, dists)
        return self.hub_tables[step.edge]

    def _complete(self, record: int) -> None:
        """Algorithm 1, lines 12-14: push a full match into the top-k, where a node map already
        there keeps only its better edge map. (Pruning stays exact: an edge map that would
        improve a kept node map scores below the k-th best, so no bound discards it.)"""
        key = (math.fsum(self.node_d + self.edge_d), tuple(self.ent), tuple(self.erow))
        rank = match_rank(key, self.kg)
        if self.tree is not None:
            self.tree.mark(record, "completed")
        same = next((i for i, (_, kept, _) in enumerate(self.best) if kept[1] == key[1]), None)
        if same is not None:
            if rank >= self.best[same][0]:
                return
            del self.best[same]
        elif len(self.best) == self.k and rank >= self.best[-1][0]:
            return
        bisect.insort(self.best, (rank, key, record), key=lambda entry: entry[0])
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
        """Prune the `count` remaining siblings, of which the first (best) one is given; the tree
        keeps the k-th best GSD they lost against."""
        self.pruned += count
        if self.tree is not None:
            kth = self.best[-1][0][0]
            self.tree.add(
                parent, depth, edge, node, entity, row, partial, bound, "pruned_bound", count, kth
            )


def algorithm1_topk(
    kg: KnowledgeGraph,
    pattern: PatternGraph,
    pools: SearchPools,
    k: int = 3,
    *,
    max_expansions: int | None = DEFAULT_MAX_EXPANSIONS,
    time_limit_s: float | None = DEFAULT_TIME_LIMIT_S,
) -> SearchResult:
    """The paper's Algorithm 1: DFS over all candidate mappings, only a top-k check at leaves."""
    return _Search(kg, pattern, pools, k, False, max_expansions, time_limit_s, None).run()


def _name_tree(tree: SearchTree, kg: KnowledgeGraph) -> None:
    """Record the names of the tree's entities and triples (the entities named in one batch)."""
    rows = [row for row in tree.triple if row >= 0]
    triples = kg.triples[rows].tolist() if rows else []
    named = list(dict.fromkeys([*tree.entity, *(e for h, _, t in triples for e in (h, t))]))
    names = dict(zip(named, kg.entities.names_of(named), strict=True))
    tree.entity_names = [names[entity] for entity in tree.entity]
    by_row = {
        row: (names[head], kg.relations[relation], names[tail])
        for row, (head, relation, tail) in zip(rows, triples, strict=True)
    }
    tree.triple_names = [by_row.get(row) for row in tree.triple]


def optimized_topk(
    kg: KnowledgeGraph,
    pattern: PatternGraph,
    pools: SearchPools,
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
    kg: KnowledgeGraph, pattern: PatternGraph, pools: SearchPools, k: int = 3
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
    keys.sort(key=lambda key: match_rank(key, kg))
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
