"""Load a method's learned model from its checkpoint, trusting neither where it sits nor the card
alone: the card must say it is this method's model (class, settings, encoder), and the weights'
tensor names and shapes must be those of the model built from the card (and their sha256 the
card's). Any mismatch is one line naming both sides.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Generic, TypeVar

import torch

from kgviz.checkpoints.card import CardIdentity, card_identity
from kgviz.checkpoints.store import WEIGHTS, StoredCheckpoint, read_checkpoint
from kgviz.errors import CheckpointError

M = TypeVar("M", bound=torch.nn.Module)
NAMES_SHOWN = 2


@dataclass(frozen=True)
class LearnedPart(Generic[M]):
    """What a method loads: its model class, built from a `settings` dataclass, and the encoder
    whose vectors it reads. A settings class may name `CARD_DEFAULTS`: the values of fields added
    after cards were written, meaning what a card without them was trained as."""

    method: str
    model_class: type[M]
    settings: type
    encoder: str
    command: str = ""  # how to train it, when not `kgviz train METHOD`
    folder: str = ""  # the checkpoint folder, when not METHOD (another training of one part)

    @property
    def train_command(self) -> str:
        return self.command or f"kgviz train {self.method}"

    @property
    def folder_name(self) -> str:
        return self.folder or self.method


def load_learned(part: LearnedPart[M], root: Path | None = None) -> tuple[M, dict[str, Any]]:
    """`part`'s model from the checkpoint under `root` (default: the packaged one), in evaluation
    mode, and its card (to be read, not changed)."""
    stored = read_checkpoint(part.folder_name, part.train_command, root)
    identity = card_identity(stored.card, stored.folder, part.model_class.__name__)
    check_identity(identity, part, stored.folder)
    model = part.model_class(card_settings(identity.settings, part.settings, stored.folder))
    check_tensors(stored, model)
    if identity.weights_sha256 not in (None, stored.sha256):
        raise CheckpointError(
            f"{stored.folder}: the card was written for weights with sha256 "
            f"{identity.weights_sha256[:12]}..., but {WEIGHTS} has sha256 {stored.sha256[:12]}..."
        )
    model.load_state_dict(stored.state)
    return model.eval(), stored.card


def check_identity(identity: CardIdentity, part: LearnedPart[Any], folder: Path) -> None:
    """The card names `part`'s method, model class and encoder."""
    method, model = part.method, part.model_class.__name__
    if identity.method != method:
        raise CheckpointError(
            f"{folder}: the card says method {identity.method}, but {method} is loading it"
        )
    if identity.model_class != model:
        raise CheckpointError(
            f"{folder}: the card says model {identity.model_class}, but {method} builds {model}"
        )
    if identity.encoder != part.encoder:
        raise CheckpointError(
            f"{folder}: the card says encoder {identity.encoder}, "
            f"but {method} embeds with {part.encoder}"
        )


def card_settings(settings: dict[str, Any], kind: type, folder: Path) -> Any:
    """`kind` built from the card's model settings, which must give each of its fields with the
    type of its default (fields in `kind.CARD_DEFAULTS` may be absent)."""
    settings = {**getattr(kind, "CARD_DEFAULTS", {}), **settings}
    types = {field.name: type(field.default) for field in fields(kind)}
    problems = [f"no {name}" for name in types if name not in settings]
    problems += [f"an unknown {name}" for name in settings if name not in types]
    problems += [
        f"{name} {settings[name]!r} (not {wanted.__name__})"
        for name, wanted in types.items()
        if name in settings and type(settings[name]) is not wanted
    ]
    if problems:
        raise CheckpointError(
            f"{folder}: the card's model settings do not fit {kind.__name__}: "
            + ", ".join(problems)
        )
    return kind(**settings)


def check_tensors(stored: StoredCheckpoint, model: torch.nn.Module) -> None:
    """The weights hold exactly the model's tensors, each of the model's shape."""
    found = {name: tuple(tensor.shape) for name, tensor in stored.state.items()}
    built = {name: tuple(tensor.shape) for name, tensor in model.state_dict().items()}
    problems = []
    resized = [name for name in built if name in found and found[name] != built[name]]
    if resized:
        name = resized[0]
        more = f" (and {len(resized) - 1} more tensors differ)" if len(resized) > 1 else ""
        problems.append(
            f"{name} is {list(found[name])} in {WEIGHTS} but {list(built[name])} in the model{more}"
        )
    if missing := [name for name in built if name not in found]:
        problems.append(f"{WEIGHTS} lacks {listed(missing)}")
    if extra := sorted(name for name in found if name not in built):
        problems.append(f"the model has no {listed(extra)}")
    if problems:
        raise CheckpointError(
            f"{stored.folder}: the weights do not fit the card's {type(model).__name__}: "
            + "; ".join(problems)
        )


def listed(names: list[str]) -> str:
    """The first names and how many more."""
    shown = ", ".join(names[:NAMES_SHOWN])
    return shown + (f" and {len(names) - NAMES_SHOWN} more" if len(names) > NAMES_SHOWN else "")
