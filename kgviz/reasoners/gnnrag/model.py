"""The trained GNN's checkpoint: safetensors weights and a card in `kgviz/checkpoints/gnnrag/`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kgviz.checkpoint_loader import LearnedPart, load_learned
from kgviz.embed.encoder import DEFAULT_MODEL
from kgviz.reasoners.gnnrag.gnn import GNNReasoner, GNNShape

CHECKPOINT = "gnnrag"
GNN = LearnedPart(CHECKPOINT, GNNReasoner, GNNShape, DEFAULT_MODEL)


def load_gnn(root: Path | None = None) -> tuple[GNNReasoner, dict[str, Any]]:
    """The trained GNN (evaluation mode) and its card; missing weights name the train command."""
    return load_learned(GNN, root)
