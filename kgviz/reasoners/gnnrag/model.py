"""The trained GNN's checkpoint: safetensors weights and a card in `kgviz/checkpoints/gnnrag/`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kgviz.checkpoint_store import load_checkpoint
from kgviz.reasoners.gnnrag.gnn import GNNReasoner, GNNShape

CHECKPOINT = "gnnrag"
TRAIN_COMMAND = "kgviz train gnnrag"


def load_gnn(root: Path | None = None) -> tuple[GNNReasoner, dict[str, Any]]:
    """The trained GNN (evaluation mode) and its card; missing weights name the train command."""
    state, card = load_checkpoint(CHECKPOINT, TRAIN_COMMAND, root)
    model = GNNReasoner(GNNShape(**{k: v for k, v in card["model"].items() if k != "encoder"}))
    model.load_state_dict(state)
    return model.eval(), card
