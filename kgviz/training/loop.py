"""The epoch loop every trainer runs: Adam over shuffled batches of samples, a validation pass
after each epoch, early stopping on one validation score; the best epoch's weights are kept.
Each finished epoch is saved, so the same command resumes an interrupted run after it."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from kgviz.training.early_stopping import EarlyStopping
from kgviz.training.progress import TrainingProgress
from kgviz.training.saved_progress import SavedProgress, learning_state


@dataclass(frozen=True)
class Schedule:
    """Learning rate, samples per optimiser step, at most `epochs` epochs, and stopping after
    `patience` epochs in a row without a better validation `metric` (higher is better)."""

    lr: float
    batch: int
    epochs: int
    patience: int
    metric: str


@dataclass(frozen=True)
class Validation:
    """One validation pass: the numbers an epoch's history line keeps (the schedule's `metric`
    among them), and all its scores."""

    summary: dict[str, float]
    scores: dict[str, Any]


@dataclass(frozen=True)
class Fitted:
    """How a model was trained, each epoch's mean training loss and validation summary, and the
    best epoch."""

    schedule: Schedule
    history: list[dict[str, float]]
    best: Validation
    best_epoch: int


def fit(
    model: torch.nn.Module,
    loss_of: Callable[[np.ndarray], torch.Tensor],
    validate: Callable[[], Validation],
    samples: int,
    schedule: Schedule,
    rng: np.random.Generator,
    unit: str,
    saved: SavedProgress | None = None,
) -> Fitted:
    """Train `model` on `samples` samples: each epoch draws an order from `rng` and steps on
    `loss_of(indices)` per batch of it, then `validate()`s in evaluation mode. The model ends with
    the best epoch's weights. With `saved`, every finished epoch is saved there (weights,
    optimiser, history, early stopping, `rng`) and a run finding it goes on from the next epoch;
    it is cleared once training ends."""
    optimizer = torch.optim.Adam(model.parameters(), lr=schedule.lr)
    stopping: EarlyStopping[Validation] = EarlyStopping(schedule.patience)
    history: list[dict[str, float]] = []
    steps, first = math.ceil(samples / schedule.batch), 1
    if saved is not None and (state := saved.load()) is not None:
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        history, stopping, first = state["history"], state["stopping"], state["epoch"] + 1
        rng.bit_generator.state = state["rng"]
        print(f"resuming {saved.path}: {state['epoch']} of {schedule.epochs} epochs done")
    with TrainingProgress(schedule.epochs, steps, unit=unit) as progress:
        progress.bar.update((first - 1) * steps)
        for epoch in range(first, schedule.epochs + 1):
            model.train()
            order = rng.permutation(samples)
            losses = []
            for start in progress.steps(epoch, range(0, samples, schedule.batch)):
                loss = loss_of(order[start : start + schedule.batch])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            model.eval()
            checked = validate()
            mean_loss = round(float(np.mean(losses)), 5)
            history.append({"epoch": epoch, "loss": mean_loss, **checked.summary})
            shown = ", ".join(f"{name} {value:g}" for name, value in checked.summary.items())
            progress.report(f"epoch {epoch}: loss {mean_loss:.4f}, val {shown}")
            score = checked.summary[schedule.metric]
            if stopping.should_stop(epoch, score, checked, model):
                break
            if saved is not None and epoch < schedule.epochs:  # after the last: nothing to resume
                learned = learning_state(model, optimizer, history, stopping)
                saved.save(**learned, epoch=epoch, rng=rng.bit_generator.state)
    best, weights, best_epoch = stopping.best()
    model.load_state_dict(weights)
    if saved is not None:
        saved.clear()
    return Fitted(schedule, history, best, best_epoch)
