"""Which questions an evaluation runs: a split, optionally one of its parts, only some hop counts
or question types, then sample/limit."""

from __future__ import annotations

import random
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from kgviz.datasets.base import QARecord
from kgviz.datasets.splits import PARTS, split_records
from kgviz.errors import InputError


@dataclass(frozen=True)
class EvalPlan:
    """A split, optionally one of its train/val/heldout parts (`kgviz eval --part`), only the
    questions of `hops` hop counts and of `qtypes` question types (empty: all), shuffled with
    `sample_seed` and cut to `limit`."""

    split: str
    part: str | None = None
    limit: int | None = None
    sample_seed: int | None = None
    hops: frozenset[int] = frozenset()
    qtypes: frozenset[str] = frozenset()

    def select(self, records: Sequence[QARecord]) -> list[QARecord]:
        chosen = list(records)
        if self.part is not None:
            if self.part not in PARTS:
                raise InputError(f"unknown part {self.part!r}; choose from {', '.join(PARTS)}")
            chosen = split_records(chosen)[self.part]
        if self.hops:
            chosen = [r for r in chosen if r.hops in self.hops]
        if self.qtypes:
            chosen = [r for r in chosen if r.qtype in self.qtypes]
        if self.sample_seed is not None:
            chosen = random.Random(self.sample_seed).sample(chosen, len(chosen))
        return chosen[: self.limit] if self.limit is not None else chosen

    def describe(self) -> str:
        """The plan in the words of `kgviz eval`'s options, e.g. `--split dev --sample 0
        --limit 20 --hops 1,2`."""
        words = [f"--split {self.split}"]
        if self.part is not None:
            words.append(f"--part {self.part}")
        if self.hops:
            words.append("--hops " + ",".join(map(str, sorted(self.hops))))
        if self.qtypes:
            words.append("--qtype " + shlex.quote(",".join(sorted(self.qtypes))))
        if self.sample_seed is not None:
            words.append(f"--sample {self.sample_seed}")
        if self.limit is not None:
            words.append(f"--limit {self.limit}")
        return " ".join(words)
