"""The answer box: what a run answered and, when the question has gold answers, how it fared
(the lab, pages and the demo page all show a run's outcome this way)."""

from __future__ import annotations

from kgviz.reasoners.citations import Citations
from kgviz.runs.run import Run
from kgviz.trace import CITATIONS
from kgviz.viz.citations_view import cited_lines
from kgviz.viz.escape import esc

# A reply longer than this shows its first lines, the rest folded behind "show all".
FOLD_LINES = 4
FOLD_CHARS = 400


def answer_html(run: Run) -> str:
    """The answer (a long one folded), the answers it committed to and, with gold answers: the
    verdict (hits@1, the first committed answer is gold) with hit and F1 beside it, whether a gold
    answer reached the evidence, and for a miss the stage that failed and why; then the run's
    warnings, and its notes (information that holds for every question) in grey."""
    trace, outcome = run.trace, run.outcome
    found = ", ".join(trace.answers) or "(none)"
    verdict = ""
    if outcome.score is not None:
        score = outcome.score
        verdict = (
            f'<br><b style="color:{"#2a7a2a" if score.hit1 else "#b00020"}">'
            f"{outcome.verdict()}</b> (hits@1 {score.hit1:d}, "
            f"hit {score.hit:d}, F1 {score.f1:.2f}; gold: {esc(', '.join(outcome.gold))})"
        )
        if outcome.in_evidence is not None:
            reached = "yes" if outcome.in_evidence else "no"
            verdict += f"<br><b>gold answer in the evidence</b>: {reached}"
        if outcome.miss is not None and outcome.miss.stage:
            verdict += (
                f"<br><b>failed at</b>: {esc(outcome.miss.stage)} ({esc(outcome.miss.reason)})"
            )
    banner = grounding_banner(run)
    said = outcome.grounding.warning() if banner and outcome.grounding else None
    warnings = "".join(
        f'<br><span style="color:#a06000">warning: {esc(w)}</span>'
        for w in outcome.run_warnings
        if not (said and w.endswith(said))  # the banner says it
    )
    notes = "".join(f'<br><span style="color:#555">note: {esc(n)}</span>' for n in outcome.notes)
    answer = "(abstained: no answer)" if trace.abstained else trace.answer
    said_answer = f"<b>Answer</b>: {folded(answer)}<b>committed answers</b>: {esc(found)}"
    if banner and not trace.abstained:  # answered although the question is not in the KG
        said_answer = (
            f'<div class="kgviz-not-grounded" style="color:#8a8a8a">{said_answer} '
            '<i style="color:#7a0016">(not grounded: the KG does not back them)</i></div>'
        )
    citations = trace.stages.get(CITATIONS)
    cited = cited_lines(citations, len(trace.evidence)) if isinstance(citations, Citations) else ""
    return (
        f'<div class="kgviz-answer" style="font:14px sans-serif;margin:6px 0">'
        f"{banner}{said_answer}{cited}{verdict}{warnings}{notes}</div>"
    )


def folded(text: str) -> str:
    """`text` escaped and ended by a line break; past `FOLD_LINES` lines or `FOLD_CHARS`
    characters, its start and a "show all" that unfolds the whole (kept line by line)."""
    lines = text.strip().splitlines()
    head = "\n".join(lines[:FOLD_LINES])[:FOLD_CHARS]
    if head == text.strip():
        return f"{esc(text)}<br>"
    return (
        f'<span style="white-space:pre-wrap">{esc(head)}</span> …'
        f'<details class="kgviz-fold"><summary>show all ({len(lines)} lines, '
        f"{len(text)} characters)</summary>"
        f'<div style="white-space:pre-wrap;max-height:20em;overflow:auto">{esc(text)}</div>'
        f"</details>"
    )


def grounding_banner(run: Run) -> str:
    """A red banner when what the question names is not in the KG (empty otherwise)."""
    grounding = run.outcome.grounding
    if grounding is None or grounding.grounded:
        return ""
    then = "the method abstained" if run.trace.abstained else "the answer is not backed by it"
    return (
        '<div class="kgviz-ungrounded" style="background:#fde8e8;border:1px solid #b00020;'
        'color:#7a0016;padding:4px 8px;margin:0 0 6px;border-radius:3px">'
        f"<b>Not grounded in this KG</b>: {esc(grounding.warning())} — {then}.</div>"
    )
