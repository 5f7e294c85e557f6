"""Small model checkpoints shipped in the package: safetensors weights plus a JSON training card."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kgviz.atomic import atomic_path, write_text_atomic
from kgviz.errors import KgvizError

CHECKPOINTS = Path(__file__).resolve().parent / "checkpoints"


def checkpoint_dir(name: str, root: Path | None = None) -> Path:
    return (root or CHECKPOINTS) / name


def save_checkpoint(name: str, state: dict[str, Any], card: dict[str, Any],
                    root: Path | None = None) -> Path:
    """Write `model.safetensors` (tensors only) and `card.json` (data, seed, settings, metrics)."""
    from safetensors.torch import save_file

    folder = checkpoint_dir(name, root)
    with atomic_path(folder / "model.safetensors") as tmp:
        tensors = {key: tensor.detach().contiguous().cpu() for key, tensor in state.items()}
        save_file(tensors, str(tmp))
    write_text_atomic(folder / "card.json", json.dumps(card, indent=2, sort_keys=True) + "\n")
    return folder


def load_checkpoint(name: str, train_command: str,
                    root: Path | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """`(state_dict, card)`; a missing checkpoint is a clear error naming `train_command`."""
    from safetensors.torch import load_file

    folder = checkpoint_dir(name, root)
    weights, card = folder / "model.safetensors", folder / "card.json"
    if not weights.is_file() or not card.is_file():
        raise KgvizError(f"no trained checkpoint for {name!r} in {folder}; "
                         f"train it with `{train_command}`")
    return load_file(str(weights)), json.loads(card.read_text(encoding="utf-8"))
