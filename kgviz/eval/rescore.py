"""Re-score stored results rows from the answers they committed to, without re-running the LLM.

Rows written before the committed-answer metrics counted `hit1` as "a gold answer is named
anywhere in the reply". Each row keeps its reply (`answer`) and committed answers (`answers`),
so the metrics can be recomputed from them and the gold answers of its question. A row that
committed to nothing is given its method's last-resort extraction (`Reasoner.listed_answers`)
when the KG's names are at hand, as a run of today's code would.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from kgviz.errors import RunStoreError
from kgviz.eval.rows import ResultRow
from kgviz.reasoners.answers import NameLookup
from kgviz.reasoners.registry import method_spec, reasoner_class
from kgviz.scoring.attribution import GROUNDING_STAGE, Miss, attribute
from kgviz.scoring.metrics import score_answers


def inferred_truncation(row: Mapping[str, Any], max_tokens: int | None) -> bool | None:
    """Whether a row that did not record it ran to its token limit: known only for a run of one
    LLM call under a known `max_tokens` (its completion tokens reached the limit)."""
    if row.get("truncated") is not None:
        return bool(row["truncated"])
    if max_tokens is None or row.get("llm_calls") != 1:
        return None
    return int(row.get("completion_tokens", 0)) >= max_tokens


def rescore_row(
    row: Mapping[str, Any],
    gold: Sequence[str],
    retrieves: bool = True,
    max_tokens: int | None = None,
    listed: Callable[[str], list[str]] | None = None,
) -> ResultRow:
    """`row` with `hit1`, `hit`, `named`, `committed`, precision, recall and F1 recomputed, and a
    miss's stage and reason brought in line by the one attribution rule (a miss the method's own
    diagnosis found stays one: the run's records are not in the row). `truncated` is inferred
    where the row did not record it (`inferred_truncation`), else stays None. `listed` extracts
    the answers of a row that committed to none (see the module docstring)."""
    answers = list(row.get("answers") or [])
    if not answers and listed is not None and not row.get("error"):
        answers = listed(row.get("answer", ""))
    score = score_answers(row.get("answer", ""), answers, gold)
    truncated = inferred_truncation(row, max_tokens)
    rescored = {
        **row,
        "answers": answers,
        **score.as_row(),
        "truncated": truncated,
        "reasked": bool(row.get("reasked", False)),
    }
    if row.get("error"):
        return cast(ResultRow, rescored)
    stage = row.get("failed_stage")
    own = Miss(stage, row.get("failure", "")) if stage in _own_stages(row["method"]) else None
    miss = attribute(score, bool(row.get("evidence_recall")), truncated, retrieves, own)
    return cast(ResultRow, {**rescored, "failed_stage": miss.stage, "failure": miss.reason})


def _own_stages(method: str) -> tuple[str, ...]:
    """The stages a run's own records diagnose (grounding, and `method`'s own): a miss found
    there is kept on rescoring."""
    return (GROUNDING_STAGE, *method_spec(method).stages)


def rescore_rows(
    rows: Sequence[Mapping[str, Any]],
    gold_by_qid: Mapping[str, Sequence[str]],
    names_by_qid: Mapping[str, NameLookup] | None = None,
) -> list[ResultRow]:
    """Every row re-scored against the gold answers of its `qid` (and, given the KG names of
    its question, its method's last-resort extraction). A row whose question is unknown is an
    error (its score could not be trusted)."""
    missing = sorted({row["qid"] for row in rows if row["qid"] not in gold_by_qid})
    if missing:
        raise RunStoreError(
            f"no gold answers for {len(missing)} question(s), e.g. {missing[0]}; "
            "name the dataset and split the results came from"
        )

    def answer_limit(row: Mapping[str, Any]) -> int | None:
        config = reasoner_class(row["method"]).config_class(**(row.get("settings") or {}))
        return getattr(config, "max_tokens", None)

    def listed(row: Mapping[str, Any]) -> Callable[[str], list[str]] | None:
        names = (names_by_qid or {}).get(row["qid"])
        if names is None:
            return None
        extract = reasoner_class(row["method"]).listed_answers
        return lambda reply: extract(reply, names)

    return [
        rescore_row(
            row,
            gold_by_qid[row["qid"]],
            reasoner_class(row["method"]).retrieves,
            answer_limit(row),
            listed(row),
        )
        for row in rows
    ]
