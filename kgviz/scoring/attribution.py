"""Which stage a miss failed at (SimGRAG's error analysis, automated): a method's own stage
(from its spec's diagnosis, e.g. SimGRAG's pattern), retrieval or generation.

`attribute` is the one rule; `failed_stage` applies it to a finished run and `kgviz rescore`
to a stored row, so both always agree.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from kgviz.datasets.base import QARecord
from kgviz.reasoners.grounding import GROUNDING, Grounding
from kgviz.reasoners.registry import method_names, method_spec
from kgviz.scoring.metrics import AnswerScore, evidence_recall, score_trace
from kgviz.trace import EDIT, Trace

SHARED_STAGES = ("retrieval", "generation")
GROUNDING_STAGE = "grounding"
WITHOUT_RETRIEVAL = "answered from the LLM's own knowledge, without retrieval"
NOT_IN_EVIDENCE = "no gold answer in the evidence"
REMOVED_BY_EDIT = "the triples removed from the evidence held every gold answer it had"


def attribution_stages(methods: Iterable[str] | None = None) -> tuple[str, ...]:
    """Every stage a miss can be attributed to, in run order: grounding, the methods' own
    stages (as their specs declare them; with `methods`, the method names or labels of the rows
    at hand, only those methods'), then retrieval and generation."""
    labels = None if methods is None else set(methods)
    own = [
        stage
        for name in method_names()
        if labels is None or any(label.split(" ")[0] == name for label in labels)
        for stage in method_spec(name).stages
    ]
    return (GROUNDING_STAGE, *dict.fromkeys(own), *SHARED_STAGES)


class Miss(NamedTuple):
    """Why a run missed: the stage that failed (None for a hit) and the reason in words."""

    stage: str | None
    reason: str = ""


def attribute(
    score: AnswerScore,
    in_evidence: bool,
    truncated: bool | None,
    retrieves: bool = True,
    own: Miss | None = None,
) -> Miss:
    """The stage a reply scored `score` failed at: none for a hit; generation for a method
    that retrieves nothing; the method's `own` diagnosis when it has one (grounding first);
    retrieval when no gold answer reached the evidence; else generation, with what went wrong
    in the reply."""
    if score.hit1:
        return Miss(None)
    if not retrieves:
        return Miss("generation", WITHOUT_RETRIEVAL)
    if own is not None:
        return own
    if not in_evidence:
        return Miss("retrieval", NOT_IN_EVIDENCE)
    return Miss("generation", generation_problem(score, truncated))


def own_diagnosis(trace: Trace, record: QARecord) -> Miss | None:
    """What the run itself shows went wrong before retrieval: a question not grounded in the
    KG, else the method's own diagnosis (its spec's), or None."""
    grounding = trace.stages.get(GROUNDING)
    if isinstance(grounding, Grounding) and not grounding.grounded:
        return Miss(GROUNDING_STAGE, grounding.warning())
    if trace.method not in method_names():
        return None
    found = method_spec(trace.method).diagnose(trace, record)
    return Miss(*found) if found else None


def failed_stage(trace: Trace, record: QARecord, retrieves: bool = True) -> Miss:
    """`attribute` of a finished run against its question's gold answers; a regenerated run
    whose gold answers left the evidence with the triples its edit removed failed at the
    edit, not at retrieval."""
    miss = attribute(
        score_trace(trace, record.answers),
        evidence_recall(trace.evidence, record.answers),
        trace.truncated,
        retrieves,
        own_diagnosis(trace, record),
    )
    dropped = getattr(trace.stages.get(EDIT), "dropped", ())
    if miss.stage == "retrieval" and evidence_recall(list(dropped), record.answers):
        return Miss(EDIT, REMOVED_BY_EDIT)
    return miss


def generation_problem(score: AnswerScore, truncated: bool | None) -> str:
    """Why a reply whose evidence held a gold answer still missed."""
    return "a gold answer was in the evidence, but " + _reply_problem(score, truncated)


def _reply_problem(score: AnswerScore, truncated: bool | None) -> str:
    if not score.committed:
        return (
            "the reply ran to its token limit without committing to an answer"
            if truncated
            else "the reply committed to no answer"
        )
    if score.hit:
        return "the reply put a wrong answer first and a gold one later"
    if score.named:
        return "the reply named a gold answer without committing to it"
    return "the reply committed to wrong answers"
