"""Deterministic train / validation / held-aside parts of a split (MetaQA has only `dev` here)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kgviz.datasets.base import QARecord
from kgviz.datasets.metaqa import MetaQA

PARTS = ("train", "val", "heldout")
HOPS = (1, 2, 3)


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


def split_records(
    records: Sequence[QARecord], plan: SplitPlan = SplitPlan()
) -> dict[str, list[QARecord]]:
    """Records grouped into `train`, `val` and `heldout` (held aside for evaluation only)."""
    parts: dict[str, list[QARecord]] = {part: [] for part in PARTS}
    for record in records:
        parts[plan.part_of(record)].append(record)
    return parts


def pick(records: Sequence[QARecord], count: int, rng: np.random.Generator) -> list[QARecord]:
    """A seeded sample of `count` records, in their original order."""
    chosen = np.sort(rng.choice(len(records), size=min(count, len(records)), replace=False))
    return [records[i] for i in chosen]


def metaqa_training_parts(
    root: Path,
    per_hop: int,
    val_per_hop: int,
    rng: np.random.Generator,
    hops: Sequence[int] = HOPS,
    split: str = "dev",
) -> tuple[MetaQA, list[QARecord], list[QARecord]]:
    """Seeded samples per hop count of the `train` and `val` parts of a MetaQA split (`heldout`
    is never touched); the returned dataset gives the shared KG."""
    train: list[QARecord] = []
    val: list[QARecord] = []
    for count in hops:
        dataset = MetaQA(count, root)
        parts = split_records(dataset.questions(split))
        train += pick(parts["train"], per_hop, rng)
        val += pick(parts["val"], val_per_hop, rng)
    return dataset, train, val


def training_parts(
    records: Sequence[QARecord], per_hop: int, val_per_hop: int, rng: np.random.Generator
) -> tuple[list[QARecord], list[QARecord]]:
    """Seeded samples of the `train` and `val` parts of any dataset's records, `per_hop` (and
    `val_per_hop`) of each hop count (records without one form one group)."""
    parts = split_records(records)
    groups = sorted({r.hops for r in records}, key=lambda h: (h is None, h or 0))
    train = [
        r for h in groups for r in pick([x for x in parts["train"] if x.hops == h], per_hop, rng)
    ]
    val = [
        r for h in groups for r in pick([x for x in parts["val"] if x.hops == h], val_per_hop, rng)
    ]
    return train, val


def hop_counts(records: Sequence[QARecord]) -> dict[str, int]:
    """How many records of each hop count (for training cards)."""
    counts: dict[str, int] = {}
    for record in records:
        key = f"{record.hops}-hop" if record.hops is not None else "hops not given"
        counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items()))


def require_metaqa(root: Path) -> None:
    """A clear error when the MetaQA files a trainer needs are not under `root`."""
    from kgviz.errors import MissingDataError

    if not (root / "MetaQA" / "kb.txt").is_file():
        raise MissingDataError(f"MetaQA not found under {root}; pass --data or set KGVIZ_DATA")


def metaqa_heldout(
    root: Path, per_hop: int, hops: Sequence[int] = HOPS
) -> tuple[MetaQA, list[QARecord]]:
    """The first `per_hop` questions of each hop count's `heldout` part (for measurements)."""
    records: list[QARecord] = []
    for count in hops:
        dataset = MetaQA(count, root)
        records += split_records(dataset.questions("dev"))["heldout"][:per_hop]
    return dataset, records
