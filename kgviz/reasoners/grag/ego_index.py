"""GRAG's index: the k-hop ego-graph of every entity, embedded as the mean of its node and edge
text vectors (node text: the entity name; edge text: the relation), persisted per graph.

Ego-graph of a centre `c`: walk `hops` undirected steps from `c`; each node is expanded through
at most `max_degree` of its half-edges, so hubs (genres, years) join an ego-graph but do not
flood it. Its nodes are those reached, its edges those walked. A question's ego-graphs expand a
hub through the half-edges most relevant to the question (relation and neighbour text vectors
against the question's); the index, built before any question, pools each hub's first
`max_degree` half-edges in name order (relation, then neighbour), which is the same however the
KG numbers its entities. The whole index is built with sparse matrix products over the CSR (no
per-entity Python loop). A KG behind an endpoint (`KnowledgeGraph.fetches`) has no whole index:
the vectors of the centres a question ranks are pooled when it asks, over what `reach` fetched.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from kgviz.embed.encoder import TextEncoder, get_encoder
from kgviz.embed.index import FaissIndex
from kgviz.embed.kg_index import entity_name_vectors, graph_fingerprint, relation_vectors
from kgviz.embed.met_vectors import MetVectors, required
from kgviz.errors import StoreError
from kgviz.kg.graph import KnowledgeGraph, concat_ranges
from kgviz.paths import cache_name, cache_root
from kgviz.storage.atomic import write_atomic
from kgviz.storage.cache_repair import CORRUPT, CorruptCache, set_aside

CHUNK_ROWS = 4096  # centres pooled per sparse product (bounds memory on hub-rich graphs)
SCORE_CHUNK = 65_536  # a hub's half-edges scored at once (bounds memory on huge hubs)
Relevance = Callable[[np.ndarray], np.ndarray]  # adjacency positions -> relevance scores


@dataclass(frozen=True)
class EgoGraph:
    """Sorted entity ids and sorted triple rows of one centre's ego-graph."""

    centre: int
    nodes: np.ndarray
    edges: np.ndarray


def capped_positions(
    kg: KnowledgeGraph, nodes: np.ndarray, max_degree: int, relevance: Relevance | None = None
) -> np.ndarray:
    """Sorted positions in `kg.adj` of at most `max_degree` half-edges of each node: the most
    relevant ones given `relevance`, else the first ones in name order."""
    starts, ends = kg.adj.ptr[nodes], kg.adj.ptr[nodes + 1]
    small = ends - starts <= max_degree
    kept = [concat_ranges(starts[small], ends[small])]
    for start, end in zip(starts[~small].tolist(), ends[~small].tolist()):
        if relevance is None:
            kept.append(first_by_name(kg, start, end, max_degree))
        else:
            kept.append(most_relevant(kg, start, end, max_degree, relevance))
    return np.sort(np.concatenate(kept))


def _name_keys(kg: KnowledgeGraph, positions: np.ndarray) -> tuple[np.ndarray, ...]:
    """`np.lexsort` keys ordering half-edges by relation name, then neighbour name, then
    direction (outgoing first): the same order however the KG numbers its entities."""
    return (
        ~kg.adj.forward[positions],
        kg.entity_rank[kg.adj.neighbor[positions]],
        kg.relation_rank[kg.adj.relation[positions]],
    )


def first_by_name(kg: KnowledgeGraph, start: int, end: int, count: int) -> np.ndarray:
    """The `count` positions in `[start, end)` first in name order (`_name_keys`)."""
    positions = np.arange(start, end)
    return np.sort(positions[np.lexsort(_name_keys(kg, positions))[:count]])


def most_relevant(
    kg: KnowledgeGraph, start: int, end: int, count: int, relevance: Relevance
) -> np.ndarray:
    """The `count` positions in `[start, end)` that `relevance` scores highest, scored in chunks
    (ties in name order, `_name_keys`)."""
    best = np.zeros(0, dtype=np.int64)
    best_scores = np.zeros(0, dtype=np.float32)
    for chunk in range(start, end, SCORE_CHUNK):
        positions = np.concatenate([best, np.arange(chunk, min(chunk + SCORE_CHUNK, end))])
        scores = np.concatenate([best_scores, relevance(positions[len(best) :])])
        top = np.lexsort((*_name_keys(kg, positions), -scores))[:count]
        best, best_scores = positions[top], scores[top]
    return np.sort(best)


def ego_graph(
    kg: KnowledgeGraph, centre: int, hops: int, max_degree: int, relevance: Relevance | None = None
) -> EgoGraph:
    """The ego-graph of `centre` (the module docstring defines it); hubs expand through their
    most relevant half-edges given `relevance`, else their first ones."""
    seen = np.zeros(kg.num_entities, dtype=bool)
    seen[centre] = True
    frontier = np.array([centre], dtype=np.int64)
    walked: list[np.ndarray] = []
    for _ in range(hops):
        positions = capped_positions(kg, frontier, max_degree, relevance)
        walked.append(kg.adj.edge[positions])
        reached = kg.adj.neighbor[positions]
        frontier = np.unique(reached[~seen[reached]]).astype(np.int64)
        seen[frontier] = True
    edges = np.unique(np.concatenate(walked)) if walked else np.zeros(0, np.int64)
    return EgoGraph(centre, np.flatnonzero(seen), edges)


def reach_ego_graphs(
    kg: KnowledgeGraph,
    centres: np.ndarray,
    hops: int,
    max_degree: int,
    relevance: Callable[[], Relevance] | None = None,
) -> None:
    """Fetch every neighbourhood the ego-graphs of `centres` walk, for a KG that fetches (hubs
    step through the half-edges `relevance()` scores best, asked anew at each hop as the graph
    grows, else their first ones)."""
    if not kg.fetches:
        return
    frontier = np.unique(np.asarray(centres, dtype=np.int64))
    for _ in range(hops):
        kg.reach(frontier, 1)
        positions = capped_positions(kg, frontier, max_degree, relevance() if relevance else None)
        frontier = np.unique(kg.adj.neighbor[positions]).astype(np.int64)


def _binary(matrix: sp.csr_matrix) -> sp.csr_matrix:
    matrix = matrix.tocsr()
    matrix.data[:] = 1.0
    return matrix


def pooled_ego_embeddings(
    kg: KnowledgeGraph,
    node_vectors: np.ndarray | MetVectors,
    relation_vectors: np.ndarray,
    hops: int,
    max_degree: int,
    centres: np.ndarray | None = None,
) -> np.ndarray:
    """Mean of node and edge vectors over the ego-graph of each of `centres` (default: every
    entity), `(len(centres), dim)`.

    With `A` the capped adjacency and `B` the capped node -> edge incidence, the nodes within
    `hops - 1` steps are `R = (I + A)^(hops-1)`; the ego nodes are `R (I + A)` and the ego edges
    `R B` (binarised), whose relation counts `R B T` pick up the relation vectors.
    """
    n = kg.num_entities
    targets = np.arange(n, dtype=np.int64) if centres is None else np.asarray(centres, np.int64)
    positions = capped_positions(kg, np.arange(n, dtype=np.int64), max_degree)
    owners = np.repeat(np.arange(n), np.diff(np.searchsorted(positions, kg.adj.ptr)))
    ones = np.ones(len(positions), dtype=np.float32)
    step = _binary(
        sp.identity(n, np.float32, format="csr")
        + sp.csr_matrix((ones, (owners, kg.adj.neighbor[positions])), shape=(n, n))
    )
    incidence = sp.csr_matrix((ones, (owners, kg.adj.edge[positions])), shape=(n, kg.num_triples))
    relation_of = sp.csr_matrix(
        (np.ones(kg.num_triples, np.float32), (np.arange(kg.num_triples), kg.triples[:, 1])),
        shape=(kg.num_triples, kg.num_relations),
    )
    pooled = np.zeros((len(targets), relation_vectors.shape[1]), dtype=np.float32)
    for start in range(0, len(targets), CHUNK_ROWS):
        chunk = targets[start : start + CHUNK_ROWS]
        rows = sp.csr_matrix(
            (np.ones(len(chunk), np.float32), (np.arange(len(chunk)), chunk)),
            shape=(len(chunk), n),
        )
        for _ in range(hops - 1):
            rows = _binary(rows @ step)
        nodes, edges = _binary(rows @ step), _binary(rows @ incidence)
        total = _node_sums(nodes, node_vectors) + (edges @ relation_of) @ relation_vectors
        count = np.diff(nodes.indptr) + np.diff(edges.indptr)
        pooled[start : start + CHUNK_ROWS] = total / count[:, None]
    return pooled


def _node_sums(nodes: sp.csr_matrix, vectors: np.ndarray | MetVectors) -> np.ndarray:
    """`nodes @ vectors`; vectors read as asked are asked only for the nodes held (the columns
    renumbered to match)."""
    if not isinstance(vectors, MetVectors):
        return nodes @ vectors
    held, columns = np.unique(nodes.indices, return_inverse=True)
    compact = sp.csr_matrix((nodes.data, columns, nodes.indptr), (nodes.shape[0], len(held)))
    return compact @ vectors[held]


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.maximum(norms, 1e-12)).astype(np.float32)


@dataclass
class EgoIndex:
    """A graph's text vectors and the unit-length pooled vector of each entity's ego-graph."""

    kg: KnowledgeGraph
    encoder: TextEncoder
    hops: int
    max_degree: int
    # each entity's name vector, `node_vectors[ids]`: for a KG behind an endpoint, read from
    # its vector index as asked (`MetVectors`)
    node_vectors: np.ndarray | MetVectors
    relation_vectors: np.ndarray
    ego_vectors: np.ndarray | None  # None for a KG behind an endpoint: see `vectors_of`

    @property
    def dim(self) -> int:
        """The dimension of the text vectors."""
        return int(self.relation_vectors.shape[1])

    def ego_graph(self, centre: int, question_vector: np.ndarray | None = None) -> EgoGraph:
        """`centre`'s ego-graph; hubs expand through the half-edges most relevant to the question
        when its vector is given."""
        self._reach_egos(np.array([centre]), question_vector)
        relevance = None if question_vector is None else self.relevance(question_vector)
        return ego_graph(self.kg, centre, self.hops, self.max_degree, relevance)

    def vectors_of(self, centres: np.ndarray) -> np.ndarray:
        """The unit ego vectors of `centres`: read from the index, or pooled now over what a KG
        behind an endpoint fetches for them."""
        if self.ego_vectors is not None:
            return self.ego_vectors[centres]
        self._reach_egos(centres, None)
        pooled = pooled_ego_embeddings(
            self.kg, self.node_vectors, self.relation_vectors, self.hops, self.max_degree, centres
        )
        return unit_rows(pooled)

    def _reach_egos(self, centres: np.ndarray, question_vector: np.ndarray | None) -> None:
        """Fetch every neighbourhood the ego-graphs of `centres` walk (a KG that fetches)."""
        relevance = None if question_vector is None else (lambda: self.relevance(question_vector))
        reach_ego_graphs(self.kg, centres, self.hops, self.max_degree, relevance)

    def relevance(self, question_vector: np.ndarray) -> Relevance:
        """Scores adjacency positions by the question's similarity to the walked relation's and
        the reached neighbour's text vectors (their mean)."""
        adj, relations = self.kg.adj, self.kg.triples[:, 1]

        def score(positions: np.ndarray) -> np.ndarray:
            walked = self.relation_vectors[relations[adj.edge[positions]]]
            reached = self.node_vectors[adj.neighbor[positions]]
            return ((walked + reached) @ question_vector / 2.0).astype(np.float32)

        return score

    @cached_property
    def vector_search(self) -> FaissIndex:
        """A flat index over the ego-graph vectors, built on the first global search."""
        if self.ego_vectors is None:
            raise StoreError(
                "GRAG ranks every ego-graph of the KG only when the KG is in memory; over an "
                "endpoint it needs topic entities and scope_hops (the default)"
            )
        return FaissIndex.build(self.ego_vectors)

    def embed_question(self, question: str) -> np.ndarray:
        return self.encoder.encode([question])[0]


def index_file(kg: KnowledgeGraph, model_name: str, hops: int, max_degree: int) -> Path:
    safe_model = re.sub(r"[^A-Za-z0-9_.-]+", "_", model_name)
    return (
        cache_root()
        / "grag"
        / f"{cache_name(kg.name)}-{graph_fingerprint(kg)}"
        / safe_model
        / f"ego-{hops}hop-deg{max_degree}-byname.npy"
    )


def build_ego_index(
    kg: KnowledgeGraph,
    hops: int = 2,
    max_degree: int = 50,
    encoder: TextEncoder | None = None,
    persist: bool = True,
    progress: bool = False,
    met: MetVectors | None = None,
) -> EgoIndex:
    """Embed names and relations (through the embedding cache), then load or pool the ego vectors.

    With `persist`, pooled vectors are kept in the cache, keyed by the graph's fingerprint, the
    encoder, `hops` and `max_degree` (per-question graphs such as ExplaGraphs' skip this). A KG
    behind an endpoint has no whole index to build (`EgoIndex.vectors_of` pools what a question
    ranks): its names' vectors are read from its vector index as asked, `met`.
    """
    encoder = encoder or get_encoder()
    relations = relation_vectors(kg, encoder)
    if kg.fetches:
        return EgoIndex(kg, encoder, hops, max_degree, required(met), relations, None)
    nodes = entity_name_vectors(kg, encoder, progress)
    path = index_file(kg, encoder.model_name, hops, max_degree)
    egos = _load_egos(path, (kg.num_entities, nodes.shape[1])) if persist else None
    if egos is None:
        egos = unit_rows(pooled_ego_embeddings(kg, nodes, relations, hops, max_degree))
        if persist:
            write_atomic(path, lambda handle: np.save(handle, egos, allow_pickle=False))
    return EgoIndex(kg, encoder, hops, max_degree, nodes, relations, egos)


def _load_egos(path: Path, shape: tuple[int, int]) -> np.ndarray | None:
    """The persisted ego vectors when they read as a float32 array of `shape`; a file that does
    not is set aside (and rebuilt)."""
    if not path.is_file():
        return None
    try:
        egos = np.load(path, allow_pickle=False)
        if not isinstance(egos, np.ndarray) or egos.dtype != np.float32 or egos.shape != shape:
            raise CorruptCache(f"{getattr(egos, 'shape', egos)!r} is not a float32 {shape} array")
    except CORRUPT as error:
        set_aside(path, error)
        return None
    return egos
