"""Two runs side by side: what they answered, how they fared, what evidence they had, and the
options that differ (`kgviz runs diff`, the lab's side-by-side)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kgviz.runs.run import Run
from kgviz.trace import StringTriple


@dataclass(frozen=True)
class Split:
    """Items in both, only in the first, only in the second (each in its own order)."""

    both: list[Any]
    only_a: list[Any]
    only_b: list[Any]

    @classmethod
    def of(cls, a: list[Any], b: list[Any]) -> Split:
        in_a, in_b = set(a), set(b)
        return cls(
            [x for x in a if x in in_b],
            [x for x in a if x not in in_b],
            [x for x in b if x not in in_a],
        )


@dataclass(frozen=True)
class RunDiff:
    answers: Split
    evidence: Split
    verdicts: tuple[dict[str, Any], dict[str, Any]]
    options: dict[str, tuple[Any, Any]]  # option: (value in a, value in b), where they differ

    def as_json(self) -> dict[str, Any]:
        def split(part: Split) -> dict[str, list[Any]]:
            return {"both": part.both, "only_a": part.only_a, "only_b": part.only_b}

        return {
            "answers": split(self.answers),
            "evidence": {k: [list(t) for t in v] for k, v in split(self.evidence).items()},
            "verdicts": list(self.verdicts),
            "options": {k: list(v) for k, v in self.options.items()},
        }


def verdict(run: Run) -> dict[str, Any]:
    """How a run fared: its committed answers and, with gold answers, hits@1, hit and F1."""
    score = run.outcome.score
    found: dict[str, Any] = {"method": run.method, "answers": list(run.trace.answers)}
    if score is not None:
        found |= {"hits@1": score.hit1, "hit": score.hit, "f1": round(score.f1, 4)}
    return found


def diff_runs(a: Run, b: Run) -> RunDiff:
    evidence_a: list[StringTriple] = list(a.trace.evidence)
    evidence_b: list[StringTriple] = list(b.trace.evidence)
    keys = sorted(set(a.options) | set(b.options))
    return RunDiff(
        Split.of(list(a.trace.answers), list(b.trace.answers)),
        Split.of(evidence_a, evidence_b),
        (verdict(a), verdict(b)),
        {
            key: (a.options.get(key), b.options.get(key))
            for key in keys
            if a.options.get(key) != b.options.get(key)
        },
    )
