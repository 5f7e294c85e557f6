"""One progress bar over a whole training run: every step of every epoch, so its ETA is the run's
(early stopping may end it sooner)."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from types import TracebackType
from typing import Self, TypeVar

T = TypeVar("T")


class TrainingProgress:
    """`with TrainingProgress(epochs, steps) as progress:` then `progress.steps(epoch, items)` in
    each epoch and `progress.report(line)` for its result."""

    def __init__(self, epochs: int, steps_per_epoch: int, unit: str = "step") -> None:
        from tqdm.auto import tqdm

        self.epochs = epochs
        self.bar = tqdm(total=epochs * steps_per_epoch, unit=unit, desc="training", file=sys.stderr)

    def steps(self, epoch: int, items: Iterable[T]) -> Iterator[T]:
        """`items` (one epoch's steps), advancing the bar after each."""
        self.bar.set_description(f"epoch {epoch}/{self.epochs}")
        for item in items:
            yield item
            self.bar.update()

    def report(self, line: str) -> None:
        """Print a line (an epoch's result) above the bar."""
        self.bar.write(line)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.bar.close()
