"""Trace records of GRAG's stages (plain dataclasses, shown by the notebook views and the CLI)."""

from __future__ import annotations

from dataclasses import dataclass, field


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
