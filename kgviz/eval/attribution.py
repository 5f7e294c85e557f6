"""Which stage a miss failed at (SimGRAG's error analysis, automated): pattern, retrieval or
generation."""

from __future__ import annotations

from kgviz.datasets.base import QARecord
from kgviz.eval.metrics import evidence_recall, hit_at_1
from kgviz.trace import Trace

STAGES = ("pattern", "retrieval", "generation")


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
    """`(stage, reason)` of a miss; `(None, "")` when the response names a gold answer.

    A method that `retrieves` nothing can only fail at generation."""
    if hit_at_1(trace.answer, record.answers):
        return None, ""
    if not retrieves:
        return "generation", "answered from the LLM's own knowledge, without retrieval"
    problem = pattern_problem(trace, record)
    if problem:
        return "pattern", problem
    if not evidence_recall(trace.evidence, record.answers):
        return "retrieval", "no gold answer in the evidence"
    if trace.llm_calls and trace.llm_calls[-1].truncated:
        return "generation", ("a gold answer was in the evidence, but the reply ran to its token "
                              "limit without naming it")
    return "generation", "a gold answer was in the evidence but not in the response"
