"""Which stage a miss failed at (SimGRAG's error analysis, automated): a method's own stage
(SimGRAG's pattern, from its spec's diagnosis), retrieval or generation."""

from __future__ import annotations

from kgviz.datasets.base import QARecord
from kgviz.eval.metrics import AnswerScore, evidence_recall, score_trace
from kgviz.reasoners.registry import method_names, method_spec
from kgviz.trace import Trace

# every stage a miss is attributed to: the methods' own (SimGRAG's pattern), then the shared ones
STAGES = ("pattern", "retrieval", "generation")
WITHOUT_RETRIEVAL = "answered from the LLM's own knowledge, without retrieval"
NOT_IN_EVIDENCE = "no gold answer in the evidence"


def failed_stage(trace: Trace, record: QARecord, retrieves: bool = True) -> tuple[str | None, str]:
    """`(stage, reason)` of a miss (the first committed answer is not gold); `(None, "")` for a
    hit. A method that `retrieves` nothing can only fail at generation."""
    score = score_trace(trace, record.answers)
    if score.hit1:
        return None, ""
    if not retrieves:
        return "generation", WITHOUT_RETRIEVAL
    if trace.method in method_names() and (
        own := method_spec(trace.method).diagnose(trace, record)
    ):
        return own
    if not evidence_recall(trace.evidence, record.answers):
        return "retrieval", NOT_IN_EVIDENCE
    return "generation", generation_problem(score, trace.truncated)


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
