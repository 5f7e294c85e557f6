"""Which questions an evaluation runs: a split, optionally one of its parts, then sample/limit."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from kgviz.datasets.base import QARecord
from kgviz.datasets.splits import PARTS, split_records
from kgviz.errors import KgvizError


@dataclass(frozen=True)
class EvalPlan:
    """A split, optionally one of its train/val/heldout parts (`kgviz eval --part`), shuffled
    with `sample_seed` and cut to `limit`."""

    split: str
    part: str | None = None
    limit: int | None = None
    sample_seed: int | None = None

    def select(self, records: Sequence[QARecord]) -> list[QARecord]:
        chosen = list(records)
        if self.part is not None:
            if self.part not in PARTS:
                raise KgvizError(f"unknown part {self.part!r}; choose from {', '.join(PARTS)}")
            chosen = split_records(chosen)[self.part]
        if self.sample_seed is not None:
            chosen = random.Random(self.sample_seed).sample(chosen, len(chosen))
        return chosen[: self.limit] if self.limit is not None else chosen
