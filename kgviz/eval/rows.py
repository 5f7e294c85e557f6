"""The result row: one JSON line of `kgviz eval` per answered question (the contract the runner
writes and the report, tables, charts and `kgviz rescore` read), and the check of its fields'
types that readers run."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Required, TypedDict, get_type_hints

from kgviz.errors import DataFormatError
from kgviz.reasoners.base import accepts, describe_hint


class ResultRow(TypedDict, total=False):
    """One answered question. Rows written by older kgviz versions may lack the fields added
    since (`checkpoint`, `reasked`, `committed`, ...); readers use `.get` for those."""

    method: Required[str]
    qid: Required[str]
    question: str  # with the question text (not in results published apart from the dataset)
    gold: list[str]
    llm: str  # `backend:model`
    settings: dict[str, Any]  # the options `kgviz eval --set` gave every method
    hops: int | None
    qtype: str | None
    answer: str
    answers: list[str]  # the committed answers, in reply order
    hit1: bool  # the first committed answer is gold (the headline)
    hit: bool  # some committed answer is gold
    named: bool  # a gold answer is named anywhere in the reply (lenient)
    committed: bool
    precision: float
    recall: float
    f1: float
    truncated: bool | None  # None: not recorded (rows of older versions)
    reasked: bool
    evidence_recall: bool
    evidence_size: int
    checkpoint: str
    prompt_tokens: int
    completion_tokens: int
    llm_calls: int
    seconds: float
    llm_seconds: float
    cached_calls: int
    timings: dict[str, float]
    failed_stage: str | None
    failure: str
    warnings: list[str]
    error: str | None


def row_problem(row: Mapping[str, Any]) -> str | None:
    """What is wrong with a row's known fields (the first of the wrong type), or None."""
    for name, hint in get_type_hints(ResultRow).items():
        if name in row and not accepts(hint, row[name]):
            return f"{name!r} must be {describe_hint(hint)}, not {row[name]!r:.60}"
    return None


def check_rows(path: Path, rows: list[ResultRow]) -> list[ResultRow]:
    """`rows`, read from `path` one per non-blank line, once each has fields of the right types;
    else a `DataFormatError` naming the line of the first that has not."""
    for index, row in enumerate(rows):
        problem = row_problem(row)
        if problem is not None:
            lines = path.read_text(encoding="utf-8").split("\n")
            numbers = [number for number, line in enumerate(lines, start=1) if line.strip()]
            raise DataFormatError(path, numbers[index], f"a results row whose {problem}")
    return rows
