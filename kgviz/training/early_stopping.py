"""Early stopping shared by the trainers: keep the epoch with the best validation score."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

import torch

S = TypeVar("S")


@dataclass
class EarlyStopping(Generic[S]):
    """The best epoch so far (its number, validation scores and a copy of the weights); says
    when `patience` epochs in a row have not beaten it."""

    patience: int
    score: float | None = None
    scores: S | None = None
    epoch: int = 0
    state: dict[str, torch.Tensor] | None = None
    stale: int = 0

    def should_stop(self, epoch: int, score: float, scores: S, model: torch.nn.Module) -> bool:
        """Record an epoch's validation `score` (higher is better) and its `scores`."""
        if self.score is None or score > self.score:
            self.score, self.scores, self.epoch, self.stale = score, scores, epoch, 0
            self.state = {k: v.detach().clone() for k, v in model.state_dict().items()}
            return False
        self.stale += 1
        return self.stale >= self.patience

    def best(self) -> tuple[S, dict[str, torch.Tensor], int]:
        """The best epoch's scores, weights and number (after at least one epoch)."""
        if self.scores is None or self.state is None:
            raise RuntimeError("no epoch ran")
        return self.scores, self.state, self.epoch
