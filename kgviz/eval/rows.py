"""The result row: one JSON line of `kgviz eval` per answered question (the contract the runner
writes and the report, tables, charts and `kgviz rescore` read), made from a judged `Run`, and
the check of its fields' types that readers run."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Required, TypedDict, get_type_hints

from kgviz.datasets.base import QARecord
from kgviz.errors import InputError
from kgviz.reasoners.base import accepts, describe_hint
from kgviz.runs.run import Run
from kgviz.trace import Trace


class ResultRow(TypedDict, total=False):
    """One answered question. Rows written by older kgviz versions may lack the fields added
    since (`checkpoint`, `reasked`, `committed`, the setting's fields, ...); readers use `.get`
    for those."""

    method: Required[str]
    qid: Required[str]
    question: str  # with the question text (not in results published apart from the dataset)
    gold: list[str]
    llm: str  # `backend:model`
    settings: dict[str, Any]  # the options `kgviz eval --set` gave every method
    # the run's setting (`RunSetting`): preset, every option's value, code version (commit and
    # `.dirty`), the model file's and the checkpoint card's sha256 ('' where there is none)
    preset: str
    options: dict[str, Any]
    code: str
    llm_sha256: str
    card_sha256: str
    run: str  # the id of the run kept with its trace (`kgviz eval --keep-traces`)
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
    stage_tokens: dict[str, list[int]]  # per stage: [prompt tokens read, tokens generated]
    llm_calls: int
    seconds: float
    llm_seconds: float
    cached_calls: int
    timings: dict[str, float]
    failed_stage: str | None
    failure: str
    grounded: bool | None  # what the question names is in the KG (None: not checked)
    abstained: bool
    warnings: list[str]
    error: str | None


# The fields of a run's setting (`RunSetting`) a row records; `llm` the runner adds.
SETTING_FIELDS = ("preset", "options", "code", "llm_sha256", "card_sha256")


def result_row(run: Run) -> ResultRow:
    """The JSON line of one judged run of a dataset question, naming it by `qid`
    (`with_question` adds its text and gold answers)."""
    trace, outcome, record = run.trace, run.outcome, run.record
    if record is None or outcome.score is None or outcome.miss is None:
        raise InputError(f"{trace.method}: a result row needs a dataset question with gold answers")
    setting = trace.setting
    return {
        "method": trace.method,
        "qid": record.qid,
        **{key: setting[key] for key in SETTING_FIELDS if key in setting},  # type: ignore[typeddict-item]
        "hops": record.hops,
        "qtype": record.qtype,
        "answer": trace.answer,
        "answers": trace.answers,
        **outcome.score.as_row(),
        "truncated": trace.truncated,
        "reasked": trace.reasked,
        "evidence_recall": bool(outcome.in_evidence),
        "evidence_size": len(trace.evidence),
        "checkpoint": trace.checkpoint,
        "prompt_tokens": trace.prompt_tokens,
        "completion_tokens": trace.completion_tokens,
        "stage_tokens": stage_tokens(trace),
        "llm_calls": len(trace.llm_calls),
        "seconds": round(trace.cost_seconds, 4),
        "llm_seconds": round(trace.llm_seconds, 4),
        "cached_calls": sum(call.cached for call in trace.llm_calls),
        "timings": {k: round(v, 4) for k, v in trace.timings.items()},
        "failed_stage": outcome.miss.stage,
        "failure": outcome.miss.reason,
        "grounded": outcome.grounded,
        "abstained": trace.abstained,
        "warnings": list(outcome.warnings),
        "error": None,
    }


def stage_tokens(trace: Trace) -> dict[str, list[int]]:
    """Per stage that called the LLM: the prompt tokens it read (those a prompt cache or a
    prefix state supplied left out) and the tokens it generated, summed over its calls."""
    found: dict[str, list[int]] = {}
    for call in trace.llm_calls:
        read, generated = found.setdefault(call.stage, [0, 0])
        found[call.stage] = [
            read + call.prompt_tokens - call.reused_tokens,
            generated + call.completion_tokens,
        ]
    return found


def with_question(row: ResultRow, record: QARecord) -> ResultRow:
    """`row` with the question text and gold answers after its `qid`."""
    head: ResultRow = {
        "method": row["method"],
        "qid": row["qid"],
        "question": record.question,
        "gold": list(record.answers),
    }
    return {**head, **row}


def attach_questions(rows: list[ResultRow], records: Sequence[QARecord]) -> list[ResultRow]:
    """Rows with the question text and gold answers of their `qid` added (unknown ids get none)."""
    by_id = {record.qid: record for record in records}
    return [with_question(row, by_id[row["qid"]]) if row["qid"] in by_id else row for row in rows]


def row_problem(row: Mapping[str, Any]) -> str | None:
    """What is wrong with a row's known fields (the first of the wrong type), or None."""
    for name, hint in get_type_hints(ResultRow).items():
        if name in row and not accepts(hint, row[name]):
            return f"{name!r} must be {describe_hint(hint)}, not {row[name]!r:.60}"
    return None
