"""The result row: one JSON line of `kgviz eval` per answered question (the contract the runner
writes and the report, tables, charts and `kgviz rescore` read)."""

from __future__ import annotations

from typing import Any, Required, TypedDict


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
    truncated: bool
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
