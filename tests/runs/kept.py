"""A kept run to save, list and load in the run-store tests (no LLM: a trace made by hand)."""

from __future__ import annotations

from kgviz.datasets.base import QARecord
from kgviz.runs.run import Run, judged_run
from kgviz.trace import Trace

RECORD = QARecord("who directed Forrest Gump", ("Robert Zemeckis",), ("Forrest Gump",), "q1")
EVIDENCE = [("Forrest Gump", "directed_by", "Robert Zemeckis")]


def a_run(answer: str = "Robert Zemeckis", **options: object) -> Run:
    """A KAPING run of the one question that answered `answer`, with `options`."""
    trace = Trace(
        method="kaping",
        question=RECORD.question,
        dataset="demo",
        answer=answer,
        answers=[answer],
        evidence=list(EVIDENCE),
        timings={"total": 1.0},
    )
    return judged_run(trace, RECORD, options=dict(options), llm="llamacpp:qwen2.5-coder-1.5b")
