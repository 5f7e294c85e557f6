"""Which stage a miss failed at (SimGRAG's error analysis, automated): pattern, retrieval or
generation."""

from __future__ import annotations

from kgviz.datasets.base import QARecord
from kgviz.eval.metrics import AnswerScore, evidence_recall, score_trace
from kgviz.trace import Trace

STAGES = ("pattern", "retrieval", "generation")
WITHOUT_RETRIEVAL = "answered from the LLM's own knowledge, without retrieval"
NOT_IN_EVIDENCE = "no gold answer in the evidence"


def pattern_problem(trace: Trace, record: QARecord) -> str | None:
    """Why a recorded query pattern cannot lead to the answer, if it visibly cannot: no pattern,
    a topic entity missing from every candidate pool, or fewer pattern triples than hops."""
    if "pattern" not in trace.stages:
        return None
    pattern = trace.stages["pattern"]
    if pattern is None:
        return "no usable pattern"
    pools = trace.stages.get("pools")
    missing = [name for name, found in getattr(pools, "topic_in_pools", {}).items() if not found]
    if missing:
        return f"topic entity not in any candidate pool: {', '.join(missing)}"
    if record.hops and len(pattern.edges) < record.hops:
        return f"{len(pattern.edges)} pattern triple(s) for a {record.hops}-hop question"
    return None


def failed_stage(trace: Trace, record: QARecord, retrieves: bool = True) -> tuple[str | None, str]:
    """`(stage, reason)` of a miss (the first committed answer is not gold); `(None, "")` for a
    hit. A method that `retrieves` nothing can only fail at generation."""
    score = score_trace(trace, record.answers)
    if score.hit1:
        return None, ""
    if not retrieves:
        return "generation", WITHOUT_RETRIEVAL
    problem = pattern_problem(trace, record)
    if problem:
        return "pattern", problem
    if not evidence_recall(trace.evidence, record.answers):
        return "retrieval", NOT_IN_EVIDENCE
    return "generation", generation_problem(score, trace.truncated)


def generation_problem(score: AnswerScore, truncated: bool | None) -> str:
    """Why a reply whose evidence held a gold answer still missed."""
    return "a gold answer was in the evidence, but " + _reply_problem(score, truncated)


def _reply_problem(score: AnswerScore, truncated: bool | None) -> str:
    if not score.committed:
        return ("the reply ran to its token limit without committing to an answer" if truncated
                else "the reply committed to no answer")
    if score.hit:
        return "the reply put a wrong answer first and a gold one later"
    if score.named:
        return "the reply named a gold answer without committing to it"
    return "the reply committed to wrong answers"
