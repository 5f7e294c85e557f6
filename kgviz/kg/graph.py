"""KnowledgeGraph: integer triples with CSR adjacency out, in and undirected (numpy only)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from kgviz.kg.normalise import normalise
from kgviz.kg.readers import StringTriple
from kgviz.kg.vocab import Vocabulary


@dataclass(frozen=True)
class Csr:
    """Compressed sparse rows over half-edges: the half-edges of node `u` are `ptr[u]:ptr[u+1]`.

    For each half-edge: `neighbor` (the other end), `relation`, `edge` (row in `triples`) and
    `forward` (True when `u` is the head of the triple).
    """

    ptr: np.ndarray
    neighbor: np.ndarray
    relation: np.ndarray
    edge: np.ndarray
    forward: np.ndarray

    def span(self, node: int) -> slice:
        return slice(int(self.ptr[node]), int(self.ptr[node + 1]))

    def degree(self) -> np.ndarray:
        return np.diff(self.ptr)


def _padded(csr: Csr, num_nodes: int) -> Csr:
    """`csr` over `num_nodes` nodes, those beyond its own without half-edges."""
    missing = num_nodes + 1 - len(csr.ptr)
    if missing <= 0:
        return csr
    tail = np.full(missing, csr.ptr[-1], dtype=csr.ptr.dtype)
    return replace(csr, ptr=np.concatenate([csr.ptr, tail]))


def csr_order(num_nodes: int, src: np.ndarray, rel: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Stable order of edges by source, then relation, then neighbour.

    One packed int64 key sorts about 4x faster than `np.lexsort` on 10M edges; graphs too big
    to pack fall back to `lexsort`, which gives the same order.
    """
    num_relations = int(rel.max()) + 1 if len(rel) else 1
    if num_nodes * num_relations * num_nodes >= 2**63:
        return np.lexsort((dst, rel, src))
    key = (src.astype(np.int64) * num_relations + rel) * num_nodes + dst
    return np.argsort(key, kind="stable")


def _build_csr(
    num_nodes: int,
    src: np.ndarray,
    dst: np.ndarray,
    rel: np.ndarray,
    edge: np.ndarray,
    forward: np.ndarray,
) -> Csr:
    order = csr_order(num_nodes, src, rel, dst)
    ptr = np.zeros(num_nodes + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=num_nodes), out=ptr[1:])
    return Csr(
        ptr=ptr,
        neighbor=dst[order].astype(np.int32),
        relation=rel[order].astype(np.int32),
        edge=edge[order].astype(np.int64),
        forward=forward[order],
    )


def csr_keys(csr: Csr, key_nodes: int, num_relations: int) -> np.ndarray:
    """One packed int64 per half-edge, ascending in `csr`'s order up to edge id: source,
    relation, neighbour, then outgoing before incoming (`merged_csr` relies on them). Nodes are
    packed as if there were `key_nodes` of them (at least as many as there are)."""
    src = np.repeat(np.arange(len(csr.ptr) - 1, dtype=np.int64), np.diff(csr.ptr))
    return _half_edge_keys(src, csr.relation, csr.neighbor, csr.forward, key_nodes, num_relations)


def _half_edge_keys(
    src: np.ndarray, rel: np.ndarray, dst: np.ndarray, forward: np.ndarray, n: int, r: int
) -> np.ndarray:
    return ((src.astype(np.int64) * r + rel) * n + dst) * 2 + ~forward


def merged_csr(
    csr: Csr, keys: np.ndarray, key_nodes: int, num_relations: int, added: tuple[np.ndarray, ...]
) -> tuple[Csr, np.ndarray]:
    """`csr` (with its `csr_keys`) and the half-edges `added` = (src, dst, rel, edge, forward),
    whose edge ids are above all of `csr`'s, merged in the order `_build_csr` gives all of them
    at once. Only the new half-edges are sorted, so growing a graph costs a copy, not a sort."""
    src, dst, rel, edge, forward = added
    num_nodes = len(csr.ptr) - 1
    new_keys = _half_edge_keys(src, rel, dst, forward, key_nodes, num_relations)
    order = np.argsort(new_keys, kind="stable")
    at = np.searchsorted(keys, new_keys[order], side="right")
    ptr = csr.ptr.copy()
    ptr[1:] += np.cumsum(np.bincount(src, minlength=num_nodes))
    merged = Csr(
        ptr=ptr,
        neighbor=np.insert(csr.neighbor, at, dst[order].astype(np.int32)),
        relation=np.insert(csr.relation, at, rel[order].astype(np.int32)),
        edge=np.insert(csr.edge, at, edge[order].astype(np.int64)),
        forward=np.insert(csr.forward, at, forward[order]),
    )
    return merged, np.insert(keys, at, new_keys[order])


def _half_edges(triples: np.ndarray, first_row: int) -> tuple[tuple[np.ndarray, ...], ...]:
    """(src, dst, rel, edge, forward) of the outgoing, incoming and undirected half-edges of
    `triples`, whose rows start at `first_row`."""
    heads, rels, tails = triples[:, 0], triples[:, 1], triples[:, 2]
    edge_ids = np.arange(first_row, first_row + len(triples), dtype=np.int64)
    ones, zeros = np.ones(len(edge_ids), bool), np.zeros(len(edge_ids), bool)
    return (
        (heads, tails, rels, edge_ids, ones),
        (tails, heads, rels, edge_ids, zeros),
        (
            np.concatenate([heads, tails]),
            np.concatenate([tails, heads]),
            np.concatenate([rels, rels]),
            np.concatenate([edge_ids, edge_ids]),
            np.concatenate([ones, zeros]),
        ),
    )


class KnowledgeGraph:
    """A directed, relation-labelled multigraph of distinct `(head, relation, tail)` triples."""

    fetches = False  # True for a graph that holds only what `reach` has fetched
    # how often the graph dropped what it fetched and renumbered its entities from 0 (never, in
    # memory): what is kept by entity id between runs belongs to one generation
    generation = 0

    def __init__(
        self, entities: Vocabulary, relations: Vocabulary, triples: np.ndarray, name: str = "kg"
    ) -> None:
        if triples.ndim != 2 or triples.shape[1] != 3:
            raise ValueError("triples must be an (m, 3) integer array")
        self.name = name
        self.entities = entities
        self.relations = relations
        self.triples = np.ascontiguousarray(triples, dtype=np.int32)
        self.out, self.inc, self.adj = (
            _build_csr(len(entities), *half) for half in _half_edges(self.triples, 0)
        )
        # the merge keys of `_append`, packed for a number of nodes (doubled as a graph grows)
        self._csr_keys: tuple[int, list[np.ndarray]] | None = None
        self.fingerprint: str | None = None  # set where a graph is known by its store's key

    def _append(self, triples: np.ndarray) -> None:
        """Add `triples` (new rows after the present ones), merged into the adjacency as a
        fresh build would order them (`merged_csr`)."""
        csrs, r = (self.out, self.inc, self.adj), self.num_relations
        if self._csr_keys is None or self._csr_keys[0] < self.num_entities:
            n = max(self.num_entities, 2 * self._csr_keys[0] if self._csr_keys else 0)
            if n * r * n * 2 >= 2**63:  # room to grow does not pack: pack for what there is
                n = self.num_entities
            if n * r * n * 2 >= 2**63:  # too big to pack in the merge keys: build anew
                everything = np.concatenate([self.triples, triples])
                self._rebuild(everything)
                return
            self._csr_keys = (n, [csr_keys(csr, n, r) for csr in csrs])
        n, keys = self._csr_keys
        added = _half_edges(triples, len(self.triples))
        merged = [
            merged_csr(csr, csr_key, n, r, half)
            for csr, csr_key, half in zip(csrs, keys, added, strict=True)
        ]
        self.triples = np.ascontiguousarray(np.concatenate([self.triples, triples]), np.int32)
        self.out, self.inc, self.adj = (csr for csr, _ in merged)
        self._csr_keys = (n, [csr_key for _, csr_key in merged])

    def _rebuild(self, triples: np.ndarray) -> None:
        """Hold `triples` in place of the present ones, keeping the names and the fingerprint."""
        fingerprint = self.fingerprint
        KnowledgeGraph.__init__(self, self.entities, self.relations, triples, self.name)
        self.fingerprint = fingerprint

    def _grown(self, num_entities: int) -> None:
        """Give the adjacency rows for `num_entities` (a KG behind an endpoint meets entities as
        it walks: each gets its empty row before its id is handed out)."""
        csrs = (self.out, self.inc, self.adj)
        self.out, self.inc, self.adj = (_padded(csr, num_entities) for csr in csrs)

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_triples(cls, triples: Iterable[StringTriple], name: str = "kg") -> KnowledgeGraph:
        """Build from string triples, dropping exact duplicates and keeping names as given."""
        entities, relations = Vocabulary(kind="entity"), Vocabulary(kind="relation")
        rows: set[tuple[int, int, int]] = set()
        ordered: list[tuple[int, int, int]] = []
        for head, relation, tail in triples:
            row = (entities.add(head), relations.add(relation), entities.add(tail))
            if row not in rows:
                rows.add(row)
                ordered.append(row)
        array = np.array(ordered, dtype=np.int32).reshape(-1, 3)
        return cls(entities, relations, array, name=name)

    # ----------------------------------------------------------------- sizes and names
    @property
    def num_entities(self) -> int:
        return len(self.entities)

    @property
    def num_relations(self) -> int:
        return len(self.relations)

    @property
    def num_triples(self) -> int:
        return len(self.triples)

    def entity_id(self, name: str) -> int:
        return self.entities.id(name)

    def relation_id(self, name: str) -> int:
        return self.relations.id(name)

    def triple_names(self, edge: int) -> StringTriple:
        head, relation, tail = self.triples[edge]
        return self.entities[head], self.relations[relation], self.entities[tail]

    def __repr__(self) -> str:
        return (
            f"KnowledgeGraph({self.name!r}, entities={self.num_entities}, "
            f"relations={self.num_relations}, triples={self.num_triples})"
        )

    @cached_property
    def entity_rank(self) -> np.ndarray:
        """Each entity's position in name order: ties broken by name are the same however the
        entities are numbered."""
        return _name_ranks(self.entities)

    @cached_property
    def relation_rank(self) -> np.ndarray:
        return _name_ranks(self.relations)

    def rows_by_name(self, rows: np.ndarray) -> np.ndarray:
        """`rows` ordered by their triples' names (head, relation, tail)."""
        rows = np.asarray(rows, dtype=np.int64)
        heads, relations, tails = self.triples[rows].T
        ranks = (self.entity_rank[tails], self.relation_rank[relations], self.entity_rank[heads])
        return rows[np.lexsort(ranks)]

    def entities_by_name(self, entities: np.ndarray) -> np.ndarray:
        entities = np.asarray(entities, dtype=np.int64)
        return entities[np.argsort(self.entity_rank[entities], kind="stable")]

    @property
    def stored_triples(self) -> int:
        """Triples the KG holds where it is kept (here: all of them, in memory)."""
        return self.num_triples

    @property
    def stored_entities(self) -> int:
        """Entities the KG holds where it is kept (here: all of them, in memory); a vector index
        of the KG has a row for each, in id order of where it is kept."""
        return self.num_entities

    def entities_at(self, rows: np.ndarray) -> np.ndarray:
        """The ids of the entities at `rows` of a vector index over all of them (here: the same);
        a KG behind an endpoint meets them (`SparqlGraph`)."""
        return np.asarray(rows, dtype=np.int64)

    def stored_rows(self, entities: np.ndarray) -> np.ndarray:
        """The rows of `entities` in a vector index over all of them (`entities_at` undone)."""
        return np.asarray(entities, dtype=np.int64)

    def stored_entity_names(self, start: int, stop: int) -> list[str]:
        """The names at rows `start` to `stop` of a vector index over all entities."""
        return list(self.entities[start:stop])

    def entities_normalised(self, key: str) -> list[int]:
        """The entities whose name normalises (`kgviz.kg.normalise`) to `key`, by id."""
        return self._normalised_names.get(key, [])

    @cached_property
    def _normalised_names(self) -> dict[str, list[int]]:
        table: dict[str, list[int]] = {}
        for entity_id, name in enumerate(self.entities):
            table.setdefault(normalise(name), []).append(entity_id)
        return table

    # ----------------------------------------------------------------- neighbourhoods
    def reach(
        self, seeds: Iterable[int], hops: int, hub_degree: int | None = None
    ) -> KnowledgeGraph:
        """A graph in this graph's ids and rows holding every triple that a walk of `hops`
        undirected steps from `seeds` takes, not walking through entities of degree above
        `hub_degree` beyond the seeds. Methods walk the graph this returns; in memory it is the
        graph itself, a KG behind an endpoint fetches what the walk needs (`SparqlGraph`)."""
        return self

    @contextmanager
    def in_use(self) -> Iterator[None]:
        """Keep the rows a reader walks valid until the block ends (a run, a view): a KG behind an
        endpoint drops what it fetched, to stay within its bound, only when no one reads it. In
        memory there is nothing to drop."""
        yield

    def degrees(self, entities: np.ndarray) -> np.ndarray:
        """The number of triples touching each of `entities` (a self-loop counts twice)."""
        ids = np.asarray(entities, dtype=np.int64)
        return self.adj.ptr[ids + 1] - self.adj.ptr[ids]

    def neighbors(self, entity: int, direction: str = "both") -> list[tuple[int, int, int, bool]]:
        """`(edge, relation, neighbour, forward)` for each triple touching `entity`.

        `direction` is "out" (entity is head), "in" (entity is tail) or "both".
        """
        csr = {"out": self.out, "in": self.inc, "both": self.adj}[direction]
        span = csr.span(entity)
        return list(
            zip(
                csr.edge[span].tolist(),
                csr.relation[span].tolist(),
                csr.neighbor[span].tolist(),
                csr.forward[span].tolist(),
            )
        )

    def k_hop_subgraph(
        self, seeds: Iterable[int], hops: int, max_nodes: int | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Nodes within `hops` undirected steps of `seeds` and the edges walked to reach them.

        Returns `(nodes, edges)`: sorted entity ids and sorted triple rows. With `max_nodes`, the
        expansion stops before a layer that would exceed it (the layer is left out whole).
        """
        seen = np.zeros(self.num_entities, dtype=bool)
        frontier = np.unique(np.fromiter(seeds, dtype=np.int64))
        seen[frontier] = True
        edge_parts: list[np.ndarray] = []
        for _ in range(hops):
            if frontier.size == 0:
                break
            starts, ends = self.adj.ptr[frontier], self.adj.ptr[frontier + 1]
            positions = concat_ranges(starts, ends)
            neighbours = self.adj.neighbor[positions]
            fresh = np.unique(neighbours[~seen[neighbours]])
            if max_nodes is not None and int(seen.sum()) + fresh.size > max_nodes:
                break
            edge_parts.append(self.adj.edge[positions])
            seen[fresh] = True
            frontier = fresh
        edges = np.unique(np.concatenate(edge_parts)) if edge_parts else np.zeros(0, np.int64)
        return np.flatnonzero(seen), edges

    def distances_from(self, sources: Iterable[int], max_hops: int) -> np.ndarray:
        """Undirected hop distance from the nearest source (-1 beyond `max_hops`)."""
        dist = np.full(self.num_entities, -1, dtype=np.int32)
        frontier = np.unique(np.fromiter(sources, dtype=np.int64))
        dist[frontier] = 0
        for depth in range(1, max_hops + 1):
            if frontier.size == 0:
                break
            positions = concat_ranges(self.adj.ptr[frontier], self.adj.ptr[frontier + 1])
            neighbours = np.unique(self.adj.neighbor[positions])
            frontier = neighbours[dist[neighbours] < 0]
            dist[frontier] = depth
        return dist

    def shortest_path_edges(
        self, sources: Iterable[int], targets: Iterable[int], max_hops: int = 4
    ) -> np.ndarray:
        """Sorted rows of every triple on some shortest undirected path from a source to a target
        (targets beyond `max_hops` contribute none), without enumerating the paths: walking down
        the distance gradient from every target at once, a triple is on such a path exactly when
        it steps from a reached node to a node one hop nearer the sources."""
        dist = self.distances_from(sources, max_hops)
        frontier = np.unique(np.fromiter(targets, dtype=np.int64))
        frontier = frontier[dist[frontier] > 0]
        reached = np.zeros(self.num_entities, dtype=bool)
        reached[frontier] = True
        rows: list[np.ndarray] = []
        while frontier.size:
            positions = concat_ranges(self.adj.ptr[frontier], self.adj.ptr[frontier + 1])
            owners = np.repeat(frontier, np.diff(self.adj.ptr)[frontier])
            nearer = positions[dist[self.adj.neighbor[positions]] == dist[owners] - 1]
            rows.append(self.adj.edge[nearer])
            below = np.unique(self.adj.neighbor[nearer])
            frontier = below[(dist[below] > 0) & ~reached[below]]
            reached[frontier] = True
        return np.unique(np.concatenate(rows)) if rows else np.zeros(0, dtype=np.int64)

    def shortest_paths(
        self, sources: Iterable[int], targets: Iterable[int], max_hops: int = 4, max_paths: int = 64
    ) -> list[list[int]]:
        """All shortest undirected paths from any source to each target, as lists of edge rows.

        A path is the sequence of triples walked from a source to a target (each may be walked
        against its direction). Targets farther than `max_hops` get no path; at most `max_paths`
        paths are returned per target.
        """
        source_list = list(sources)
        dist = self.distances_from(source_list, max_hops)
        paths: list[list[int]] = []
        for target in dict.fromkeys(targets):
            if dist[target] < 0:
                continue
            paths.extend(self._paths_back(target, dist, max_paths))
        return paths

    def _paths_back(self, target: int, dist: np.ndarray, max_paths: int) -> list[list[int]]:
        """Walk from `target` down the distance gradient to a source (depth-first, capped),
        stepping to nearer entities in name order, so that the cap keeps the same paths however
        the KG numbers its entities."""
        found: list[list[int]] = []
        stack: list[tuple[int, list[int]]] = [(target, [])]
        while stack and len(found) < max_paths:
            node, suffix = stack.pop()
            if dist[node] == 0:
                found.append(suffix)
                continue
            span = self.adj.span(node)
            neighbours, edges = self.adj.neighbor[span], self.adj.edge[span]
            nearer = dist[neighbours] == dist[node] - 1
            neighbours, edges = neighbours[nearer], edges[nearer]
            order = np.lexsort(
                (
                    self.adj.forward[span][nearer],
                    self.relation_rank[self.adj.relation[span][nearer]],
                    self.entity_rank[neighbours],
                )
            )
            for position in order[::-1].tolist():  # the stack pops the first name first
                stack.append((int(neighbours[position]), [int(edges[position]), *suffix]))
        return found

    # ----------------------------------------------------------------- exports
    def to_networkx(self, edges: Iterable[int] | None = None):
        """A `networkx.MultiDiGraph` with entity names as nodes and `relation` on each edge."""
        import networkx as nx

        graph = nx.MultiDiGraph(name=self.name)
        rows = self.triples if edges is None else self.triples[np.fromiter(edges, dtype=np.int64)]
        for head, relation, tail in rows.tolist():
            graph.add_edge(
                self.entities[head],
                self.entities[tail],
                key=self.relations[relation],
                relation=self.relations[relation],
            )
        return graph

    def to_pyg(self, edges: Iterable[int] | None = None):
        """A PyG `Data` with `edge_index`, `edge_type` and `num_nodes` over global entity ids."""
        import torch
        from torch_geometric.data import Data

        rows = self.triples if edges is None else self.triples[np.fromiter(edges, dtype=np.int64)]
        rows_t = torch.from_numpy(rows.astype(np.int64))
        return Data(
            edge_index=rows_t[:, [0, 2]].t().contiguous(),
            edge_type=rows_t[:, 1],
            num_nodes=self.num_entities,
        )


def _name_ranks(names: Vocabulary) -> np.ndarray:
    listed = list(names)
    ranks = np.empty(len(listed), dtype=np.int64)
    ranks[sorted(range(len(listed)), key=listed.__getitem__)] = np.arange(len(listed))
    return ranks


def concat_ranges(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Concatenate `arange(s, e)` for each pair without a Python loop."""
    lengths = (ends - starts).astype(np.int64)
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
    return np.arange(total, dtype=np.int64) + offsets
