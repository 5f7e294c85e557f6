"""A run's outcome: how its committed answers fare against the gold answers, whether a gold
answer reached the evidence, the stage a miss failed at, and the run's warnings.

`judge` is the one place a finished run is scored: the CLI, the lab's answer box and compare
table, pages, the demo and evaluation rows all read its `Outcome`.
"""

from __future__ import annotations

from dataclasses import dataclass

from kgviz.datasets.base import QARecord
from kgviz.reasoners.base import is_borrowed_checkpoint_note
from kgviz.reasoners.grounding import GROUNDING, Grounding
from kgviz.scoring.attribution import Miss, failed_stage
from kgviz.scoring.metrics import AnswerScore, evidence_recall, score_trace
from kgviz.trace import Trace


@dataclass(frozen=True)
class Outcome:
    """`score`, `in_evidence` and `miss` are None for a question without gold answers (one
    typed freely); `in_evidence` is also None for a method that retrieves nothing."""

    gold: tuple[str, ...]
    score: AnswerScore | None
    in_evidence: bool | None
    miss: Miss | None
    warnings: tuple[str, ...]
    grounding: Grounding | None = None  # None for a method that links nothing (LLM only)

    @property
    def grounded(self) -> bool | None:
        """Whether what the question names is in the KG (None where nothing was checked)."""
        return None if self.grounding is None else self.grounding.grounded

    @property
    def notes(self) -> tuple[str, ...]:
        """The warnings that are information holding for every question of the dataset (a
        checkpoint trained on another dataset): worth saying once, not with each run."""
        return tuple(w for w in self.warnings if is_borrowed_checkpoint_note(w))

    @property
    def run_warnings(self) -> tuple[str, ...]:
        """The warnings about this run itself: all but the notes."""
        return tuple(w for w in self.warnings if not is_borrowed_checkpoint_note(w))

    @property
    def judged(self) -> bool:
        """Whether the question had gold answers to judge the run by."""
        return self.score is not None

    def verdict(self) -> str:
        """`correct`, `wrong`, or `` without gold answers (the answer box's headline)."""
        if self.score is None:
            return ""
        return "correct" if self.score.hit1 else "wrong"


def judge(trace: Trace, record: QARecord | None = None, retrieves: bool = True) -> Outcome:
    """The outcome of a finished run; the gold answers are the record's, else the trace's (a
    run of neither has no gold to be judged by)."""
    gold = tuple(record.answers if record is not None else trace.gold)
    warnings = tuple(trace.warnings)
    grounding = trace.stages.get(GROUNDING)
    if record is None and not gold:
        return Outcome(gold, None, None, None, warnings, grounding)
    question = record if record is not None else QARecord(trace.question, gold)
    return Outcome(
        gold,
        score_trace(trace, gold),
        evidence_recall(trace.evidence, gold) if retrieves else None,
        failed_stage(trace, question, retrieves),
        warnings,
        grounding,
    )
