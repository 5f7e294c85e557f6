"""Typed stage records of a GNN-RAG trace, for views: subgraph sizes, node probabilities,
candidates, reasoning paths and the retrieval augmentation."""

from __future__ import annotations

from dataclasses import dataclass, field

from kgviz.reasoners.gnnrag.paths import ReasoningPath

SUBGRAPH = "subgraph"  # SubgraphRecord
GNN = "gnn"  # NodeScores
CANDIDATES = "candidates"  # GNNRAGCandidates
PATHS = "paths"  # PathRecord
AUGMENTATION = "augmentation"  # Augmentation


@dataclass
class SubgraphRecord:
    """The `"subgraph"` record: sizes of the k-hop neighbourhood and of the PageRank-pruned part."""

    topics: list[str]
    hops: int
    max_nodes: int
    alpha: float
    khop_nodes: int
    khop_triples: int
    nodes: int
    triples: int


@dataclass
class NodeScore:
    name: str
    probability: float  # the GNN's answer probability
    ppr: float  # personalized PageRank from the topic entities
    topic: bool
    candidate: bool


@dataclass
class NodeScores:
    """The `"gnn"` record: every subgraph node, most probable answer first."""

    nodes: list[NodeScore] = field(default_factory=list)
    mass: float = 0.95  # candidates are taken until their probability sums to this
    checkpoint: str = ""  # the command that trained the GNN


@dataclass
class GNNRAGCandidates:
    """The `"candidates"` record: answer candidates, best first; the probability mass they cover
    (`covered`) against the `mass` asked for (less when `max_candidates` cut them)."""

    names: list[str]
    probabilities: list[float]
    mass: float
    covered: float
    max_candidates: int


@dataclass
class PathRecord:
    """The `"paths"` record: the GNN's reasoning paths given to the LLM and their `lines` as
    the prompt shows them, in prompt order."""

    paths: list[ReasoningPath]
    lines: list[str]
    unreachable: list[str] = field(default_factory=list)  # candidates with no path within `hops`
    dropped: int = 0  # paths left out by `max_paths`


@dataclass
class Augmentation:
    """The `"augmentation"` record: another method's evidence as paths; those not already among
    the GNN's are `added` after them (with their prompt `lines`)."""

    method: str
    evidence_triples: int
    paths: int
    added: list[ReasoningPath]
    lines: list[str]
    seconds: float
