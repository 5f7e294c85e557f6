"""A finished run: its trace and outcome, with what names it (method options, LLM, dataset,
question, when). `Session.ask` makes one; every front end shows, scores and stores runs."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kgviz.datasets.base import QARecord
from kgviz.errors import InputError
from kgviz.kg.graph import KnowledgeGraph
from kgviz.kg.readers import MAX_NAME_ENV, max_name_chars
from kgviz.reasoners.presets import DEFAULT_PRESET
from kgviz.scoring.outcome import Outcome, judge
from kgviz.trace import StringTriple, Trace
from kgviz.version import code_version


@dataclass(frozen=True)
class EvidenceEdit:
    """What a regenerated run changed in its parent's evidence."""

    dropped: tuple[StringTriple, ...] = ()
    added: tuple[StringTriple, ...] = ()

    def as_json(self) -> dict[str, list[list[str]]]:
        return {"dropped": [list(t) for t in self.dropped], "added": [list(t) for t in self.added]}


def parse_triple(text: str) -> StringTriple:
    """A triple as a user types it, `head | relation | tail`, with each name held to
    `KGVIZ_MAX_NAME_CHARS`.

    >>> parse_triple("Forrest Gump | directed_by | Robert Zemeckis")
    ('Forrest Gump', 'directed_by', 'Robert Zemeckis')
    >>> parse_triple("Forrest Gump | directed_by")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kgviz.errors.InputError: bad triple 'Forrest Gump | directed_by': expected 'head | ...'
    """
    parts = [part.strip() for part in text.split("|")]
    if len(parts) != 3 or not all(parts):
        raise InputError(f"bad triple {text[:200]!r}: expected 'head | relation | tail'")
    longest = max_name_chars()
    for part in parts:
        if len(part) > longest:
            raise InputError(
                f"a name of {len(part):,} characters in the triple {text[:80]!r}...: at most "
                f"{longest:,} (set {MAX_NAME_ENV} to raise it)"
            )
    return parts[0], parts[1], parts[2]


# What names and judges a run in an export (a page, the compare CSV), in this order.
FACTS = (
    "dataset",
    "question",
    "method",
    "options",
    "LLM",
    "gold",
    "committed answers",
    "grounded",
    "hits@1",
    "hit",
    "F1",
    "date",
    "kgviz",
)


def options_text(options: Mapping[str, Any]) -> str:
    """A run's options as one line.

    >>> options_text({"k": 3, "algorithm": "optimized"})
    'k=3, algorithm=optimized'
    >>> options_text({})
    'defaults'
    """
    return ", ".join(f"{key}={value}" for key, value in options.items()) or "defaults"


@dataclass
class Run:
    """`options` are the method options the run set (its preset's values with those the user
    set over them; the trace's `setting` has every option's value); `llm` is
    `backend:model`; `kg` is the graph the run searched (the question's own graph where the
    dataset gives each one)."""

    trace: Trace
    outcome: Outcome
    options: dict[str, Any]
    llm: str
    kg: KnowledgeGraph | None = None
    record: QARecord | None = None
    retrieves: bool = True
    finished: float = field(default_factory=time.time)

    @property
    def method(self) -> str:
        return self.trace.method

    @property
    def preset(self) -> str:
        """The preset the run used (the default for runs kept before presets)."""
        return str(self.trace.setting.get("preset", DEFAULT_PRESET))

    def options_text(self) -> str:
        """`k=3, algorithm=optimized`, or `defaults`."""
        return options_text(self.options)

    def facts(self) -> dict[str, str]:
        """The `FACTS` of this run as text: the scores are empty without gold answers; the date
        is when it finished."""
        score = self.outcome.score
        scores = (
            ("", "", "")
            if score is None
            else (f"{score.hit1:d}", f"{score.hit:d}", f"{score.f1:.2f}")
        )
        values = (
            self.trace.dataset,
            self.trace.question,
            self.method,
            self.options_text(),
            self.llm,
            ", ".join(self.outcome.gold),
            ", ".join(self.trace.answers),
            self.grounded_text(),
            *scores,
            time.strftime("%Y-%m-%d %H:%M", time.localtime(self.finished)),
            code_version(),
        )
        return dict(zip(FACTS, values, strict=True))

    def grounded_text(self) -> str:
        """ "yes", "no: <what is missing>" (its committed answers are not backed by the KG), or
        empty where grounding was not checked."""
        grounding = self.outcome.grounding
        if grounding is None:
            return ""
        return "yes" if grounding.grounded else f"no: {grounding.warning()}"

    def to_json(self) -> dict[str, Any]:
        """The contract JSON of `kgviz ask --json`: the trace's, plus the options, the
        gold answers and, with gold, the outcome (hits@1, hit, F1, the stage a miss failed at)."""
        data = {**self.trace.to_json(), "options": dict(self.options)}
        outcome = self.outcome
        data["gold"] = list(outcome.gold)
        data["grounding"] = outcome.grounding.as_json() if outcome.grounding else None
        if outcome.score is not None and outcome.miss is not None:
            data["outcome"] = {
                **outcome.score.as_row(),
                "evidence_recall": outcome.in_evidence,
                "failed_stage": outcome.miss.stage,
                "failure": outcome.miss.reason,
            }
        return data


def judged_run(
    trace: Trace,
    record: QARecord | None = None,
    *,
    retrieves: bool = True,
    options: dict[str, Any] | None = None,
    llm: str = "",
    kg: KnowledgeGraph | None = None,
    finished: float | None = None,
) -> Run:
    """The run of a `trace` that finished at `finished` (epoch seconds; now by default),
    judged against `record`'s gold answers (else the trace's)."""
    return Run(
        trace,
        judge(trace, record, retrieves),
        dict(options or {}),
        llm,
        kg,
        record,
        retrieves,
        time.time() if finished is None else finished,
    )
