"""Answer metrics over the answers a reply commits to, as the papers define them.

`hit1` is standard KGQA Hits@1: the *first* committed answer is gold. `hit` (SubgraphRAG's and
GNN-RAG's "Hit") asks whether *some* committed answer is gold. `named` is SimGRAG's lenient check
(a gold answer is named anywhere in the reply), kept only to set results beside that paper's: a
reply that loops over names, or names the gold answer as a rejected option, passes it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from kgviz.reasoners.answers import mentioned_entities
from kgviz.trace import Trace


def answer_key(name: str) -> str:
    """How answers are compared with gold: case-folded, white space folded.

    >>> answer_key("  Robert   ZEMECKIS ")
    'robert zemeckis'
    """
    return " ".join(name.casefold().split())


@dataclass(frozen=True)
class AnswerScore:
    """How one reply's committed answers fare against the gold set."""

    hit1: bool  # the first committed answer is gold (the headline)
    hit: bool  # some committed answer is gold
    named: bool  # some gold answer is named anywhere in the reply (lenient)
    committed: bool  # the reply committed to at least one answer
    precision: float
    recall: float
    f1: float

    def as_row(self) -> dict[str, bool | float]:
        return asdict(self)


def named_in_reply(reply: str, gold: Iterable[str]) -> bool:
    """SimGRAG's lenient check: some gold answer is named (whole word, any case) in `reply`."""
    return bool(mentioned_entities(reply, gold))


def answer_prf(predicted: Sequence[str], gold: Sequence[str]) -> tuple[float, float, float]:
    """Precision, recall and F1 of the committed answers against the gold set.

    >>> answer_prf(["Ron Howard", "Robert Zemeckis"], ["robert zemeckis"])
    (0.5, 1.0, 0.6666666666666666)
    >>> answer_prf([], ["Ron Howard"])
    (0.0, 0.0, 0.0)
    """
    predicted_set = {answer_key(name) for name in predicted}
    gold_set = {answer_key(name) for name in gold}
    if not predicted_set or not gold_set:
        return 0.0, 0.0, 0.0
    correct = len(predicted_set & gold_set)
    precision, recall = correct / len(predicted_set), correct / len(gold_set)
    f1 = 2 * precision * recall / (precision + recall) if correct else 0.0
    return precision, recall, f1


def score_answers(reply: str, answers: Sequence[str], gold: Sequence[str]) -> AnswerScore:
    """Score the committed `answers` (in reply order) and the raw `reply` against `gold`.

    >>> score = score_answers("Ron Howard, Robert Zemeckis", ["Ron Howard", "Robert Zemeckis"],
    ...                       ["Robert Zemeckis"])
    >>> score.hit1, score.hit, score.named, round(score.f1, 2)
    (False, True, True, 0.67)
    """
    gold_keys = {answer_key(name) for name in gold}
    keys = [answer_key(name) for name in answers]
    precision, recall, f1 = answer_prf(answers, gold)
    return AnswerScore(
        hit1=bool(keys) and keys[0] in gold_keys,
        hit=any(key in gold_keys for key in keys),
        named=named_in_reply(reply, gold),
        committed=bool(keys),
        precision=precision,
        recall=recall,
        f1=f1,
    )


def row_value(row: Mapping[str, Any], key: str) -> float:
    """A results row's `key` as a number, for rows of every vintage: `no_answer` derives from
    `committed` (or, in older rows, from `answers`), a row without `hit` or `named` counts its
    `hit1`, and an unrecorded `truncated` is NaN (to be left out of means)."""
    if key in ("hit", "named") and key not in row:
        key = "hit1"
    if key == "no_answer":
        return float(not row.get("committed", bool(row.get("answers"))))
    if key == "truncated" and row.get("truncated") is None:
        return float("nan")
    return float(row.get(key) or 0)


def evidence_recall(evidence: Iterable[tuple[str, str, str]], gold: Iterable[str]) -> bool:
    """Whether some gold answer appears as an entity of the evidence given to the LLM.

    >>> evidence_recall([("Big", "directed_by", "Penny Marshall")], ["penny marshall"])
    True
    """
    entities = {answer_key(name) for head, _, tail in evidence for name in (head, tail)}
    return any(answer_key(answer) in entities for answer in gold)


def score_trace(trace: Trace, gold: Sequence[str]) -> AnswerScore:
    """`score_answers` of a finished run: its reply and the answers its method committed to."""
    return score_answers(trace.answer, trace.answers, gold)
