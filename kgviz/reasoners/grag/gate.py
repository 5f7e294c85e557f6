"""GRAG's soft-pruning gate: an MLP on the element-wise distance |z_q - z_x| between the question
and a node (entity name) or an edge (relation text), one MLP for nodes and one for edges."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from kgviz.checkpoints.loader import LearnedPart, load_learned
from kgviz.embed.encoder import DEFAULT_MODEL

CHECKPOINT = "grag"


@dataclass(frozen=True)
class GateShape:
    dim: int = 384
    hidden: int = 64


def _mlp(shape: GateShape) -> nn.Sequential:
    return nn.Sequential(nn.Linear(shape.dim, shape.hidden), nn.ReLU(), nn.Linear(shape.hidden, 1))


class SoftPruner(nn.Module):
    """Keep logits of nodes and edges given the question vector and their text vectors."""

    def __init__(self, shape: GateShape = GateShape()) -> None:
        super().__init__()
        self.shape = shape
        self.node_gate = _mlp(shape)
        self.edge_gate = _mlp(shape)

    def forward(
        self, question: torch.Tensor, nodes: torch.Tensor, edges: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits `(len(nodes),)` and `(len(edges),)`; `question` is one vector or one per row."""
        return (
            self.node_gate((nodes - question).abs()).squeeze(-1),
            self.edge_gate((edges - question).abs()).squeeze(-1),
        )

    @torch.no_grad()
    def probabilities(
        self, question: np.ndarray, nodes: np.ndarray, edges: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        node_logits, edge_logits = self(*map(torch.from_numpy, (question, nodes, edges)))
        return torch.sigmoid(node_logits).numpy(), torch.sigmoid(edge_logits).numpy()


PRUNER = LearnedPart(CHECKPOINT, SoftPruner, GateShape, DEFAULT_MODEL)


def load_pruner(root: Path | None = None) -> tuple[SoftPruner, dict[str, Any]]:
    """The trained gate in `root` (default: the packaged one) and its card; a missing checkpoint
    names the training command."""
    return load_learned(PRUNER, root)
