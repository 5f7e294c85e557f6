"""What a checkpoint card says the checkpoint is: method, model class and settings, text encoder,
training dataset and the weights file's sha256 (the card's other blocks are its training record).

Card format 2, as `kgviz.training.card` writes it:

    "format": 2,
    "method": "gnnrag",
    "model": {"class": "GNNReasoner", "settings": {"hidden": 64, ...},
              "encoder": "all-MiniLM-L6-v2"},
    "data": {"dataset": "metaqa", ...},
    "weights": {"file": "model.safetensors", "sha256": "..."},

`settings` are the model's constructor settings (its `shape`). A card without `format` (format 1,
before identities) is read by its older fields: its model entry holds the settings beside the
encoder (and a description), its class is the one its method builds (the weights' tensors are
checked against it all the same), MetaQA is named by its label, and it has no weights hash.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from kgviz.checkpoints.store import PACKAGED_DATASET
from kgviz.errors import CheckpointError

if TYPE_CHECKING:
    import torch

CARD_FORMAT = 2
FORMAT_1_METAQA = "MetaQA vanilla (1/2/3-hop)"  # how format 1 cards named MetaQA
FORMAT_1_NOT_SETTINGS = ("encoder", "architecture")

T = TypeVar("T")


def model_entry(model: torch.nn.Module, encoder: str) -> dict[str, Any]:
    """The card's `model` entry: what the loader rebuilds `model` from (learned models keep the
    dataclass of their constructor settings as `shape`)."""
    settings: Any = model.shape
    return {"class": type(model).__name__, "settings": asdict(settings), "encoder": encoder}


@dataclass(frozen=True)
class CardIdentity:
    """A card's identity fields; `weights_sha256` is None on a format 1 card."""

    method: str
    model_class: str
    settings: dict[str, Any]
    encoder: str
    dataset: str  # as given to `kgviz train --dataset`
    weights_sha256: str | None


def card_identity(card: dict[str, Any], folder: Path, model_class: str) -> CardIdentity:
    """The identity `card` (of `folder`) states; `model_class` stands in for the class a format 1
    card does not name. A missing or mistyped field is one line naming it."""
    fields = CardFields(card, folder)
    version = card.get("format", 1)
    if version == CARD_FORMAT:
        return CardIdentity(
            method=fields.get("method", str),
            model_class=fields.get("model.class", str),
            settings=fields.get("model.settings", dict),
            encoder=fields.get("model.encoder", str),
            dataset=trained_on(card, folder),
            weights_sha256=fields.get("weights.sha256", str),
        )
    if version != 1:
        raise CheckpointError(f"{folder}: card format {version!r} is not one this kgviz reads")
    model = fields.get("model", dict)
    return CardIdentity(
        method=fields.get("method", str),
        model_class=model_class,
        settings={k: v for k, v in model.items() if k not in FORMAT_1_NOT_SETTINGS},
        encoder=fields.get("model.encoder", str),
        dataset=trained_on(card, folder),
        weights_sha256=None,
    )


def trained_on(card: dict[str, Any], folder: Path) -> str:
    """The dataset the card's checkpoint was trained on, as given to `kgviz train --dataset`."""
    dataset = CardFields(card, folder).get("data.dataset", str)
    return PACKAGED_DATASET if "format" not in card and dataset == FORMAT_1_METAQA else dataset


@dataclass(frozen=True)
class CardFields:
    """Typed reads of a card's (dotted) fields."""

    card: dict[str, Any]
    folder: Path

    def get(self, dotted: str, kind: type[T]) -> T:
        value: Any = self.card
        for key in dotted.split("."):
            if not isinstance(value, dict) or key not in value:
                raise CheckpointError(f"{self.folder}: the card has no {dotted}")
            value = value[key]
        if not isinstance(value, kind):
            raise CheckpointError(f"{self.folder}: the card's {dotted} is not a {kind.__name__}")
        return value
