"""Trace records of GRAG's stages (plain dataclasses, shown by the notebook views and the CLI)."""

from __future__ import annotations

from dataclasses import dataclass, field

EGO_GRAPHS = "ego_graphs"  # EgoRetrieval
PRUNING = "pruning"  # list[PrunedEgoGraph]
DESCRIPTION = "description"  # list[Description]
GRAPH_TOKEN = "graph_token"  # GraphToken


@dataclass
class RetrievedEgo:
    """One retrieved ego-graph: its centre, cosine similarity to the question, and its size."""

    centre: str
    score: float
    nodes: int
    edges: int


@dataclass
class EgoRetrieval:
    """The `"ego_graphs"` record: the top-N ego-graphs, best first, out of `candidates`."""

    hops: int
    scope: str  # "topic entities (1 hop)", "whole KG" or "question graph"
    candidates: int
    retrieved: list[RetrievedEgo] = field(default_factory=list)


@dataclass
class Description:
    """One ego-graph's hierarchical description (the hard prompt holds them in order)."""

    centre: str
    triples: int
    text: str


@dataclass
class GatedNode:
    name: str
    gate: float
    kept: bool


@dataclass
class GatedEdge:
    head: str
    relation: str
    tail: str
    gate: float
    score: float  # mean of the edge's and its end nodes' gates
    kept: bool


@dataclass
class PrunedEgoGraph:
    """One retrieved ego-graph after pruning (the `"pruning"` record holds one per ego-graph):
    its triples were kept best gate score first within `budget` description tokens; a node is
    kept when a kept triple names it."""

    centre: str
    budget: int
    nodes: list[GatedNode] = field(default_factory=list)
    edges: list[GatedEdge] = field(default_factory=list)

    @property
    def kept_triples(self) -> list[tuple[str, str, str]]:
        return [(e.head, e.relation, e.tail) for e in self.edges if e.kept]


@dataclass
class TokenGraph:
    """One ego-graph as the graph token read it, in the order of its `PrunedEgoGraph`'s nodes
    and edges: the gates scaling them inside the GAT and the last GAT layer's attention on
    each edge (averaged over heads)."""

    centre: str
    node_gates: list[float]
    edge_gates: list[float]
    attention: list[float]


@dataclass
class GraphToken:
    """The `"graph_token"` record: the soft prompt fed before the hard prompt, the encoder's
    checkpoint, the reader it was trained through, and what each ego-graph gave it."""

    checkpoint: str
    reader: str
    vector: list[float]
    graphs: list[TokenGraph] = field(default_factory=list)
