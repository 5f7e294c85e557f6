"""Checkpoint cards carry their identity: the packaged cards are format 2 and name their weights'
sha256; a format 1 card (written before identities) still loads its method's model and is
checked all the same."""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest
import torch
from safetensors.torch import load_file

from kgviz.checkpoints.card import CARD_FORMAT, FORMAT_1_METAQA
from kgviz.checkpoints.store import CARD, CHECKPOINTS, WEIGHTS
from kgviz.errors import KgvizError
from kgviz.reasoners.gnnrag.model import load_gnn
from kgviz.reasoners.grag.gate import load_pruner
from kgviz.reasoners.subgraphrag.scorer import load_scorer

LOADERS = {"subgraphrag": load_scorer, "gnnrag": load_gnn, "grag": load_pruner}


def format_1(card: dict) -> dict:
    """`card` as a format 1 trainer wrote it: settings beside the encoder, MetaQA by its label,
    no format and no weights hash."""
    old = {key: value for key, value in card.items() if key not in ("format", "weights")}
    old["model"] = {**card["model"]["settings"], "encoder": card["model"]["encoder"]}
    old["data"] = {**card["data"], "dataset": FORMAT_1_METAQA}
    return old


@pytest.mark.parametrize("method", LOADERS)
def test_packaged_cards_name_their_model_and_weights(method):
    folder = CHECKPOINTS / method
    card = json.loads((folder / CARD).read_text())
    assert card["format"] == CARD_FORMAT and card["method"] == method
    assert card["data"]["dataset"] == "metaqa" and card["model"]["encoder"] == "all-MiniLM-L6-v2"
    assert card["weights"]["sha256"] == hashlib.sha256((folder / WEIGHTS).read_bytes()).hexdigest()
    model, _ = LOADERS[method]()
    assert type(model).__name__ == card["model"]["class"]
    weights = load_file(folder / WEIGHTS)
    assert all(torch.equal(model.state_dict()[name], weights[name]) for name in weights)


@pytest.mark.parametrize("method", LOADERS)
def test_a_format_1_card_loads_the_same_model(method, tmp_path):
    folder = tmp_path / method
    shutil.copytree(CHECKPOINTS / method, folder)
    card = json.loads((folder / CARD).read_text())
    (folder / CARD).write_text(json.dumps(format_1(card)))
    model, old = LOADERS[method](tmp_path)
    packaged, _ = LOADERS[method]()
    assert "format" not in old and model.shape == packaged.shape
    assert all(torch.equal(v, packaged.state_dict()[k]) for k, v in model.state_dict().items())


def test_a_format_1_card_of_another_method_is_refused(tmp_path):
    folder = tmp_path / "grag"
    shutil.copytree(CHECKPOINTS / "gnnrag", folder)
    card = json.loads((folder / CARD).read_text())
    (folder / CARD).write_text(json.dumps(format_1(card)))
    with pytest.raises(KgvizError, match="the card says method gnnrag, but grag is loading it"):
        load_pruner(tmp_path)
