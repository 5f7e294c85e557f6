"""Typed stage records of a SubgraphRAG trace, for views: candidates, triple scores, generation."""

from __future__ import annotations

from dataclasses import dataclass, field

CANDIDATES = "candidates"  # SubgraphRAGCandidates
SCORING = "scoring"  # TripleScores
GENERATION = "generation"  # SubgraphRAGGeneration


@dataclass
class SubgraphRAGCandidates:
    """The `"candidates"` record: the rough subgraph and what its limits left out.

    `per_hop` counts triples by the hop that reached them; `hubs` are high-degree entities met but
    not walked through; `unexpanded` are frontier entities the cap left out and `cut` the triples
    they would have added (entity names with their degree).
    """

    triples: int
    entities: int
    per_hop: dict[int, int]
    full_layers: int
    hubs: list[tuple[str, int]] = field(default_factory=list)
    unexpanded: list[tuple[str, int]] = field(default_factory=list)
    cut: int = 0


@dataclass
class SubgraphRAGTriple:
    head: str
    relation: str
    tail: str
    hop: int  # 1 when the triple touches a topic entity
    score: float  # the scorer's probability (sigmoid of its logit)
    rank: int  # 0 is the best
    kept: bool  # among the top K sent to the LLM


@dataclass
class TripleScores:
    """The `"scoring"` record: every candidate, best first, and the checkpoint that scored them."""

    triples: list[SubgraphRAGTriple]
    top_k: int
    checkpoint: str


@dataclass
class SubgraphRAGGeneration:
    """The `"generation"` record: the LLM's explanation and its `ans:` names."""

    explanation: str
    answer_lines: list[str]
    answers: list[str]  # evidence entities named in the answer lines
