"""ToG's trace records and stage names: the beam at each depth and the walk as a whole."""

from __future__ import annotations

from dataclasses import dataclass, field

RELATION_PRUNING = "relation pruning"  # relations listed around the beam, the best kept
ENTITY_PRUNING = "entity pruning"  # their neighbours scored, the beam's best kept
REASONING = "reasoning"  # "are the paths enough?" at each depth
WALK = "walk"  # the record of the whole walk (one `Depth` per step)
STAGES = (RELATION_PRUNING, ENTITY_PRUNING, REASONING)


@dataclass
class RelationChoice:
    """The relations around one beam entity: how many were listed, the kept ones with their
    scores (best first), and why the rest went."""

    entity: str
    listed: list[str]
    kept: list[str]
    scores: list[float]
    note: str = ""  # e.g. the LLM's reply named no listed relation


@dataclass
class Candidate:
    """A path's next step: (entity, relation, neighbour), its score and whether the beam kept
    it; `forward` when the entity is the triple's head."""

    entity: str
    relation: str
    neighbour: str
    forward: bool
    score: float
    kept: bool
    why: str = ""  # why it was pruned (below the beam's cut, sampled out, ...)


@dataclass
class Decision:
    """A depth's "enough?": the LLM's yes or no, its reason, and the answers it gave with it."""

    enough: bool
    reason: str
    answers: list[str] = field(default_factory=list)


@dataclass
class Depth:
    """One step of the walk: the beam it started from, the relation and entity pruning, the
    decision, and the LLM calls and tokens it took."""

    depth: int
    beam: list[str]
    relations: list[RelationChoice] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    decision: Decision | None = None
    calls: int = 0
    tokens: int = 0


@dataclass
class Walk:
    """The `"walk"` record: every depth, the reasoning paths kept (each a list of triples from
    a topic entity), and why the walk ended."""

    depths: list[Depth] = field(default_factory=list)
    paths: list[list[tuple[str, str, str]]] = field(default_factory=list)
    starts: list[str] = field(default_factory=list)  # the topic entity each path starts at
    ended: str = ""  # "enough", "depth", "no candidates", "no topic entity"
