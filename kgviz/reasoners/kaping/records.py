"""KAPING's trace records and stage names."""

from __future__ import annotations

from dataclasses import dataclass, field

TRIPLES = "triples"  # the stage that ranks the candidate triples


@dataclass
class KapingTriple:
    """One candidate triple around the topic entities and its similarity to the question."""

    head: str
    relation: str
    tail: str
    hop: int  # 1 when the triple touches a topic entity
    score: float  # cosine similarity of its text to the question
    kept: bool


@dataclass
class TripleRanking:
    """The `"triples"` record: every candidate, best first, and how many the cap left out."""

    candidates: list[KapingTriple] = field(default_factory=list)
    top_k: int = 0
    dropped: int = 0
