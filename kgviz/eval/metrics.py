"""Answer metrics as the papers define them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kgviz.reasoners.answers import mentioned_entities


def hit_at_1(response: str, gold: Iterable[str]) -> bool:
    """SimGRAG's Hits@1: some gold answer is named (whole word, any case) in the response."""
    return bool(mentioned_entities(response, gold))


def answer_prf(predicted: Sequence[str], gold: Sequence[str]) -> tuple[float, float, float]:
    """Precision, recall and F1 of the committed answer entities against the gold set."""
    predicted_set, gold_set = set(predicted), set(gold)
    if not predicted_set or not gold_set:
        return 0.0, 0.0, 0.0
    correct = len(predicted_set & gold_set)
    precision, recall = correct / len(predicted_set), correct / len(gold_set)
    f1 = 2 * precision * recall / (precision + recall) if correct else 0.0
    return precision, recall, f1


def evidence_recall(evidence: Iterable[tuple[str, str, str]], gold: Iterable[str]) -> bool:
    """Whether some gold answer appears as an entity of the evidence given to the LLM."""
    entities = {name for head, _, tail in evidence for name in (head, tail)}
    return any(answer in entities for answer in gold)
