"""The resumable state of an unfinished training run, saved atomically in its checkpoint folder
and read back by the same command (another command's progress is a one-line error)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import torch

from kgviz.errors import CheckpointError
from kgviz.storage.atomic import atomic_path

PROGRESS = "progress.pt"


class SavedProgress:
    """`folder`/progress.pt: whatever a trainer needs to go on (weights, optimiser, position,
    history), tagged with the `command` that wrote it."""

    def __init__(self, folder: Path, command: str) -> None:
        self.path = folder / PROGRESS
        self.command = command

    def load(self) -> dict[str, Any] | None:
        """The saved state, or None when there is none."""
        if not self.path.is_file():
            return None
        state = torch.load(self.path, weights_only=False)
        if state.get("command") != self.command:
            raise CheckpointError(
                f"{self.path} holds the progress of `{state.get('command')}`; rerun that command "
                "to resume it, or delete the file to start afresh"
            )
        return state

    def save(self, **state: Any) -> None:
        """Write the state atomically; a failed write (a full disk) is a one-line `WriteError`
        and the file keeps the previous state."""
        buffer = io.BytesIO()  # torch.save reports a failed file write as a RuntimeError
        torch.save({"command": self.command, **state}, buffer)
        with atomic_path(self.path) as tmp:
            tmp.write_bytes(buffer.getvalue())

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)


def learning_state(
    model: torch.nn.Module, optimizer: torch.optim.Optimizer, history: list[Any], stopping: Any
) -> dict[str, Any]:
    """What every resumable trainer saves of its learning: the weights (`model`), the optimiser,
    the epochs' history and the early stopping."""
    return {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "history": history,
        "stopping": stopping,
    }
