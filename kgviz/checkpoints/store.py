"""Checkpoints of the learned parts: safetensors weights plus a JSON card, written and read as a
pair. What the card must say is `checkpoint_card`'s business; this module only keeps the files.

Which one a method runs with (`find_checkpoint`): an explicit folder if given; else the one
trained on the dataset in use, under the user cache (`$KGVIZ_CACHE/checkpoints/<dataset>/`,
written by `kgviz train METHOD --dataset NAME`); else the packaged one, trained on MetaQA. Which
dataset a checkpoint was trained on is read from its card, not from where it sits.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgviz.errors import CheckpointError
from kgviz.paths import cache_name, cache_root
from kgviz.storage.atomic import write_files_atomic

if TYPE_CHECKING:
    import torch

CHECKPOINTS = Path(__file__).resolve().parent  # the packaged checkpoints, one folder each
PACKAGED_DATASET = "metaqa"  # what the packaged checkpoints were trained on
WEIGHTS, CARD = "model.safetensors", "card.json"


def dataset_key(dataset: str) -> str:
    """The checkpoint key of a dataset: MetaQA's hop counts share one KG and one checkpoint."""
    return PACKAGED_DATASET if dataset.startswith("metaqa") else cache_name(dataset)


def user_checkpoints(dataset: str) -> Path:
    """Where `kgviz train METHOD --dataset NAME` writes, and `find_checkpoint` looks first."""
    return cache_root() / "checkpoints" / dataset_key(dataset)


def find_checkpoint(method: str, dataset: str, root: Path | None = None) -> Path:
    """The root whose `method` folder `method` runs with on `dataset` (see the module
    docstring)."""
    if root is not None:
        return root
    own = user_checkpoints(dataset)
    return own if (own / method / WEIGHTS).is_file() else CHECKPOINTS


def checkpoint_dir(name: str, root: Path | None = None) -> Path:
    return (root or CHECKPOINTS) / name


def weights_sha256(payload: bytes) -> str:
    return hashlib.sha256(payload).hexdigest()


def card_text(card: dict[str, Any]) -> str:
    """`card.json`'s text as kgviz writes it."""
    return json.dumps(card, indent=2, sort_keys=True) + "\n"


def card_sha256(card: dict[str, Any]) -> str:
    """The sha256 of the card as kgviz writes it (that of a `card.json` kgviz wrote): names the
    trained checkpoint a run used."""
    return hashlib.sha256(card_text(card).encode("utf-8")).hexdigest()


def save_checkpoint(folder: Path, state: dict[str, torch.Tensor], card: dict[str, Any]) -> None:
    """Write `model.safetensors` (tensors only) and `card.json` (given the weights' sha256 under
    `weights`) as a pair: both are written in full before either replaces what `folder` held, so a
    failed write is one line naming the file, and the folder keeps its previous checkpoint."""
    from safetensors.torch import save

    payload = save({key: tensor.detach().contiguous().cpu() for key, tensor in state.items()})
    card = {**card, "weights": {"file": WEIGHTS, "sha256": weights_sha256(payload)}}
    text = card_text(card)
    kept = (
        f"the checkpoint already in {folder} is kept unchanged"
        if (folder / WEIGHTS).is_file()
        else f"nothing was saved in {folder}"
    )
    write_files_atomic({folder / WEIGHTS: payload, folder / CARD: text.encode("utf-8")}, kept)


@dataclass(frozen=True)
class StoredCheckpoint:
    """A checkpoint folder as read: its weights, its card and the weights file's sha256. Both
    are shared between readers (`read_checkpoint` keeps them): read them, do not change them."""

    folder: Path
    state: dict[str, torch.Tensor]
    card: dict[str, Any]
    sha256: str


def read_checkpoint(name: str, train_command: str, root: Path | None = None) -> StoredCheckpoint:
    """The checkpoint `name` under `root` (default: the packaged ones); a missing one is a clear
    error naming `train_command`, an unreadable file one naming the file. The files are read once
    while they stay as they are (a dataset whose questions each have their own graph builds a
    reasoner per question)."""
    folder = checkpoint_dir(name, root)
    paths = (folder / WEIGHTS, folder / CARD)
    if not all(path.is_file() for path in paths):
        raise CheckpointError(
            f"no trained checkpoint for {name!r} in {folder}; train it with `{train_command}`"
        )
    versions = tuple((stat.st_mtime_ns, stat.st_size) for stat in (p.stat() for p in paths))
    return _read_checkpoint(folder, versions)


@lru_cache(maxsize=16)
def _read_checkpoint(folder: Path, versions: tuple[tuple[int, int], ...]) -> StoredCheckpoint:
    """The files of `folder` as they were at `versions` (modification time and size of each)."""
    from safetensors import SafetensorError
    from safetensors.torch import load

    try:
        card = json.loads((folder / CARD).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise CheckpointError(f"{folder / CARD}: cannot read the card ({error})") from error
    if not isinstance(card, dict):
        raise CheckpointError(f"{folder / CARD}: the card is not a JSON object")
    try:
        payload = (folder / WEIGHTS).read_bytes()
        state = load(payload)
    except (OSError, SafetensorError) as error:
        raise CheckpointError(f"{folder / WEIGHTS}: cannot read the weights ({error})") from error
    return StoredCheckpoint(folder, state, card, weights_sha256(payload))
