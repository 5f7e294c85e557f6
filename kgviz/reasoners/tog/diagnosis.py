"""ToG's own stages for error attribution: where the walk lost the gold answers."""

from __future__ import annotations

from kgviz.datasets.base import QARecord
from kgviz.reasoners.answers import evidence_entities, normalise_key
from kgviz.reasoners.tog.records import ENTITY_PRUNING, REASONING, RELATION_PRUNING, WALK, Walk
from kgviz.trace import Trace


def lost_path(trace: Trace, record: QARecord) -> tuple[str, str] | None:
    """The step that lost the gold answers, when they never reached the kept paths: entity
    pruning (a gold answer was a candidate and was pruned), reasoning (the LLM said "enough"
    before the paths reached one), or relation pruning (no kept relation led to one)."""
    walk = trace.stages.get(WALK)
    gold = {normalise_key(name) for name in record.answers}
    reached = {normalise_key(name) for name in evidence_entities(trace.evidence)}
    if not isinstance(walk, Walk) or gold & reached:
        return None
    for step in walk.depths:
        for candidate in step.candidates:
            if not candidate.kept and normalise_key(candidate.neighbour) in gold:
                return ENTITY_PRUNING, (
                    f"gold answer {candidate.neighbour} was a candidate at depth {step.depth} "
                    f"and was pruned ({candidate.why})"
                )
    if walk.ended == "enough":
        return (
            REASONING,
            f"the LLM judged depth {len(walk.depths)} enough before the paths held a gold answer",
        )
    return RELATION_PRUNING, "no kept relation led to a gold answer"
