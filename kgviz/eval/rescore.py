"""Re-score stored results rows from the answers they committed to, without re-running the LLM.

Rows written before the committed-answer metrics counted `hit1` as "a gold answer is named
anywhere in the reply". Each row keeps its reply (`answer`) and committed answers (`answers`),
so the metrics can be recomputed from them and the gold answers of its question.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kgviz.errors import KgvizError
from kgviz.eval.attribution import NOT_IN_EVIDENCE, WITHOUT_RETRIEVAL, generation_problem
from kgviz.eval.metrics import score_answers


def inferred_truncation(row: Mapping[str, Any], max_tokens: int | None) -> bool | None:
    """Whether a row that did not record it ran to its token limit: known only for a run of one
    LLM call under a known `max_tokens` (its completion tokens reached the limit)."""
    if row.get("truncated") is not None:
        return bool(row["truncated"])
    if max_tokens is None or row.get("llm_calls") != 1:
        return None
    return int(row.get("completion_tokens", 0)) >= max_tokens


def rescore_row(row: Mapping[str, Any], gold: Sequence[str], retrieves: bool = True,
                max_tokens: int | None = None) -> dict[str, Any]:
    """`row` with `hit1`, `hit`, `named`, `committed`, precision, recall and F1 recomputed, and a
    miss's stage and reason brought in line (a pattern failure stays one). `truncated` is
    inferred where the row did not record it (`inferred_truncation`), else stays None."""
    score = score_answers(row.get("answer", ""), row.get("answers", []), gold)
    truncated = inferred_truncation(row, max_tokens)
    rescored = {**row, **score.as_row(), "truncated": truncated,
                "reasked": bool(row.get("reasked", False))}
    if row.get("error") or row.get("failed_stage") == "pattern":
        return rescored
    if score.hit1:
        stage, reason = None, ""
    elif not retrieves:
        stage, reason = "generation", WITHOUT_RETRIEVAL
    elif not row.get("evidence_recall"):
        stage, reason = "retrieval", NOT_IN_EVIDENCE
    else:
        stage, reason = "generation", generation_problem(score, truncated)
    return {**rescored, "failed_stage": stage, "failure": reason}


def rescore_rows(rows: Sequence[Mapping[str, Any]],
                 gold_by_qid: Mapping[str, Sequence[str]]) -> list[dict[str, Any]]:
    """Every row re-scored against the gold answers of its `qid`. A row whose question is
    unknown is an error (its score could not be trusted)."""
    from kgviz.reasoners.registry import reasoner_class

    missing = sorted({row["qid"] for row in rows if row["qid"] not in gold_by_qid})
    if missing:
        raise KgvizError(f"no gold answers for {len(missing)} question(s), e.g. {missing[0]}; "
                         "name the dataset and split the results came from")
    def answer_limit(row: Mapping[str, Any]) -> int | None:
        config = reasoner_class(row["method"]).config_class(**(row.get("settings") or {}))
        return getattr(config, "max_tokens", None)

    return [rescore_row(row, gold_by_qid[row["qid"]], reasoner_class(row["method"]).retrieves,
                        answer_limit(row)) for row in rows]
