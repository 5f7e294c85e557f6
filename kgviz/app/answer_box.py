"""The answer box: what a run answered and, when the question has gold answers, how it fared."""

from __future__ import annotations

from kgviz.datasets.base import QARecord
from kgviz.eval.attribution import failed_stage
from kgviz.eval.metrics import evidence_recall, score_trace
from kgviz.trace import Trace
from kgviz.viz.escape import esc


def answer_html(trace: Trace, record: QARecord | None = None, retrieves: bool = True) -> str:
    """The answer, the answers it committed to and, when the question has gold answers
    (`trace.gold`): hits@1 (the first committed answer is gold) with hit and F1 beside it,
    whether a gold answer reached the evidence, and for a miss the stage that failed and why."""
    found = ", ".join(trace.answers) or "(none)"
    verdict = ""
    if trace.gold:
        gold = tuple(trace.gold)
        score = score_trace(trace, gold)
        verdict = (
            f'<br><b style="color:{"#2a7a2a" if score.hit1 else "#b00020"}">'
            f"{'correct' if score.hit1 else 'wrong'}</b> (hits@1 {score.hit1:d}, "
            f"hit {score.hit:d}, F1 {score.f1:.2f}; gold: {esc(', '.join(gold))})"
        )
        if retrieves:
            reached = "yes" if evidence_recall(trace.evidence, gold) else "no"
            verdict += f"<br><b>gold answer in the evidence</b>: {reached}"
        if not score.hit1:
            stage, reason = failed_stage(trace, record or QARecord(trace.question, gold), retrieves)
            verdict += f"<br><b>failed at</b>: {esc(stage)} ({esc(reason)})"
    warnings = "".join(
        f'<br><span style="color:#a06000">warning: {esc(w)}</span>' for w in trace.warnings
    )
    return (
        f'<div class="kgviz-answer" style="font:14px sans-serif;margin:6px 0">'
        f"<b>Answer</b>: {esc(trace.answer)}<br><b>committed answers</b>: {esc(found)}"
        f"{verdict}{warnings}</div>"
    )
