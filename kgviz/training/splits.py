"""Deterministic train / validation / held-aside parts of a split (MetaQA has only `dev` here)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from kgviz.datasets.base import QARecord

PARTS = ("train", "val", "heldout")


@dataclass(frozen=True)
class SplitPlan:
    """Fractions of records per part; membership depends only on the record id and the seed."""

    train: float = 0.6
    val: float = 0.1
    seed: int = 0

    def part_of(self, record: QARecord) -> str:
        digest = hashlib.sha256(f"{self.seed}:{record.qid or record.question}".encode()).digest()
        position = int.from_bytes(digest[:8], "big") / 2**64
        if position < self.train:
            return "train"
        return "val" if position < self.train + self.val else "heldout"


def split_records(records: Sequence[QARecord], plan: SplitPlan = SplitPlan()) -> dict[str, list[QARecord]]:
    """Records grouped into `train`, `val` and `heldout` (held aside for evaluation, never trained on)."""
    parts: dict[str, list[QARecord]] = {part: [] for part in PARTS}
    for record in records:
        parts[plan.part_of(record)].append(record)
    return parts
