"""Checkpoints of the learned parts: safetensors weights plus a JSON training card.

Which one a method runs with (`find_checkpoint`): an explicit folder if given; else the one
trained on the dataset in use, under the user cache (`$KGVIZ_CACHE/checkpoints/<dataset>/`,
written by `kgviz train METHOD --dataset NAME`); else the packaged one, trained on MetaQA. On any
other dataset that last case is a fallback, and says so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from kgviz.atomic import atomic_path, write_text_atomic
from kgviz.errors import KgvizError
from kgviz.paths import cache_name, cache_root

CHECKPOINTS = Path(__file__).resolve().parent / "checkpoints"
PACKAGED_DATASET = "metaqa"  # what the packaged checkpoints were trained on


def dataset_key(dataset: str) -> str:
    """The checkpoint key of a dataset: MetaQA's hop counts share one KG and one checkpoint."""
    return PACKAGED_DATASET if dataset.startswith("metaqa") else cache_name(dataset)


def user_checkpoints(dataset: str) -> Path:
    """Where `kgviz train METHOD --dataset NAME` writes, and `find_checkpoint` looks first."""
    return cache_root() / "checkpoints" / dataset_key(dataset)


@dataclass(frozen=True)
class CheckpointChoice:
    """The folder holding a method's checkpoint (its parent is the root), the dataset it was
    trained on, and whether it is the MetaQA fallback for another dataset."""

    root: Path
    trained_on: str
    fallback: bool

    def describe(self, method: str) -> str:
        return f"{self.root / method} (trained on {self.trained_on})"


def find_checkpoint(method: str, dataset: str, root: Path | None = None) -> CheckpointChoice:
    """The checkpoint `method` runs with on `dataset` (see the module docstring)."""
    if root is not None:
        return CheckpointChoice(root, "the folder given", False)
    own = user_checkpoints(dataset)
    if (own / method / "model.safetensors").is_file():
        return CheckpointChoice(own, dataset, False)
    return CheckpointChoice(CHECKPOINTS, PACKAGED_DATASET, dataset_key(dataset) != PACKAGED_DATASET)


def checkpoint_dir(name: str, root: Path | None = None) -> Path:
    return (root or CHECKPOINTS) / name


def save_checkpoint(
    name: str, state: dict[str, Any], card: dict[str, Any], root: Path | None = None
) -> Path:
    """Write `model.safetensors` (tensors only) and `card.json` (data, seed, settings, metrics)."""
    from safetensors.torch import save_file

    folder = checkpoint_dir(name, root)
    with atomic_path(folder / "model.safetensors") as tmp:
        tensors = {key: tensor.detach().contiguous().cpu() for key, tensor in state.items()}
        save_file(tensors, str(tmp))
    write_text_atomic(folder / "card.json", json.dumps(card, indent=2, sort_keys=True) + "\n")
    return folder


def load_checkpoint(
    name: str, train_command: str, root: Path | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """`(state_dict, card)`, both to be read, not changed; a missing checkpoint is a clear error
    naming `train_command`. The files are read once while they stay as they are (a dataset whose
    questions each have their own graph builds a reasoner per question)."""
    folder = checkpoint_dir(name, root)
    weights, card = folder / "model.safetensors", folder / "card.json"
    if not weights.is_file() or not card.is_file():
        raise KgvizError(
            f"no trained checkpoint for {name!r} in {folder}; train it with `{train_command}`"
        )
    stats = [path.stat() for path in (weights, card)]
    versions = tuple((stat.st_mtime_ns, stat.st_size) for stat in stats)
    return _read_checkpoint(folder, versions)


@lru_cache(maxsize=16)
def _read_checkpoint(
    folder: Path, versions: tuple[tuple[int, int], ...]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The files of `folder` as they were at `versions` (modification time and size of each)."""
    from safetensors.torch import load_file

    card = json.loads((folder / "card.json").read_text(encoding="utf-8"))
    return load_file(str(folder / "model.safetensors")), card
