"""The checkpoint card every trainer writes beside the weights: what was trained (the identity
`kgviz.checkpoints.card` reads back), on which data, how, and how well."""

from __future__ import annotations

import sys
from dataclasses import asdict, dataclass
from typing import Any

import torch

from kgviz.checkpoints.card import CARD_FORMAT, model_entry
from kgviz.checkpoints.store import save_checkpoint
from kgviz.training.loop import Fitted
from kgviz.training.run import TrainingRun


@dataclass(frozen=True)
class MethodCard:
    """What every card of a method says whatever the run: its paper, its training labels and its
    loss."""

    method: str
    paper: str
    labels: str
    loss: str


@dataclass(frozen=True)
class Outcome:
    """What a run's card records beside its training: the retrieval settings (a dataclass), the
    `data` block (`training.run.data_card`) and the best model's validation scores."""

    retrieval: Any
    data: dict[str, Any]
    validation: dict[str, Any]


def save_trained(
    about: MethodCard,
    run: TrainingRun,
    model: torch.nn.Module,
    encoder: str,
    fitted: Fitted,
    outcome: Outcome,
    extra: dict[str, Any] | None = None,
) -> None:
    """Save `model` (holding the best epoch's weights, read with `encoder`'s vectors) and its
    card, with `extra` entries, in the run's folder, and say so."""
    schedule, seconds = fitted.schedule, round(run.data.seconds(), 1)
    card = {
        "format": CARD_FORMAT,
        "method": about.method,
        "paper": about.paper,
        "model": model_entry(model, encoder),
        "retrieval": asdict(outcome.retrieval),
        "data": outcome.data,
        "labels": about.labels,
        "training": {
            "loss": about.loss,
            "optimizer": "Adam",
            "lr": schedule.lr,
            "batch_questions": schedule.batch,
            "seed": run.args.seed,
            "epochs_max": schedule.epochs,
            "epochs_run": len(fitted.history),
            "best_epoch": fitted.best_epoch,
            "patience": schedule.patience,
            "early_stopping": f"val {schedule.metric}",
            "threads": run.args.threads,
            "prepare_s": round(run.prepare_s, 1),
            "time_s": seconds,
            "history": fitted.history,
        },
        "validation": outcome.validation,
        "versions": {"python": sys.version.split()[0], "torch": torch.__version__},
        "command": run.command,
        **(extra or {}),
    }
    save_checkpoint(run.folder, model.state_dict(), card)
    print(
        f"saved {run.folder} (best epoch {fitted.best_epoch}, val {schedule.metric} "
        f"{fitted.best.summary[schedule.metric]:.4f}, {seconds:.0f}s)"
    )
