"""GRAG's soft prompt (Eq. 9-10): the graph token.

Each retrieved ego-graph goes through a GAT whose node features and edge attributes are scaled
by the soft-pruning gates (alpha_n, alpha_e of Eq. 6, computed by the same two MLPs as the hard
prompt's pruner and trained further with the encoder); each graph is mean-pooled, the N graphs
are averaged, and an MLP projects the result to the reader's embedding width. The token goes
before the hard prompt's text (Eq. 11) through a white-box reader (`--llm hf:NAME`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from torch_geometric.nn import GATConv

from kgviz.checkpoints.loader import LearnedPart, load_learned
from kgviz.embed.encoder import DEFAULT_MODEL
from kgviz.reasoners.grag.config import TOKEN_CHECKPOINT
from kgviz.reasoners.grag.ego_index import EgoGraph, EgoIndex
from kgviz.reasoners.grag.gate import GateShape, SoftPruner

TRAIN_COMMAND = "kgviz train grag --graph-token --llm hf:qwen2.5-coder-1.5b"


@dataclass(frozen=True)
class GraphTokenShape:
    """Text vector width, gate MLP width, GAT width, heads and layers, projector width, and the
    reader's embedding width (the paper: 4 GAT layers of 1,024 with 4 heads, for Llama2-7B)."""

    dim: int = 384
    gate_hidden: int = 64
    hidden: int = 256
    heads: int = 4
    layers: int = 2
    projector: int = 512
    llm_dim: int = 1536


@dataclass(frozen=True)
class EgoTensors:
    """One ego-graph as the encoder reads it: node and edge text vectors, and edges as local
    (head, tail) positions into the nodes."""

    nodes: torch.Tensor  # (n, dim)
    edge_index: torch.Tensor  # (2, m) long
    edges: torch.Tensor  # (m, dim), the relation's vector per edge


def ego_tensors(index: EgoIndex, ego: EgoGraph) -> EgoTensors:
    """The tensors of `ego` from the index's name and relation vectors."""
    rows = index.kg.triples[ego.edges]
    local = np.searchsorted(ego.nodes, rows[:, [0, 2]].T)  # ego.nodes is sorted
    return EgoTensors(
        torch.from_numpy(index.node_vectors[ego.nodes]),
        torch.from_numpy(local.astype(np.int64)),
        torch.from_numpy(index.relation_vectors[rows[:, 1]]),
    )


@dataclass
class TokenInside:
    """What went into a graph token, per ego-graph: the node and edge gates (alpha of Eq. 9) and
    the last GAT layer's attention of each edge, averaged over heads (self-loops left out)."""

    node_gates: list[np.ndarray]
    edge_gates: list[np.ndarray]
    attention: list[np.ndarray]


class GraphTokenEncoder(nn.Module):
    """Gated GAT over the retrieved ego-graphs -> mean pool -> mean over graphs -> MLP."""

    def __init__(self, shape: GraphTokenShape = GraphTokenShape()) -> None:
        super().__init__()
        self.shape = shape
        self.gates = SoftPruner(GateShape(shape.dim, shape.gate_hidden))
        widths = [shape.dim] + [shape.hidden] * shape.layers
        self.convs = nn.ModuleList(
            GATConv(
                width,
                shape.hidden // shape.heads,
                heads=shape.heads,
                edge_dim=shape.dim,
                add_self_loops=True,
                fill_value="mean",
            )
            for width in widths[:-1]
        )
        self.project = nn.Sequential(
            nn.Linear(shape.hidden, shape.projector),
            nn.GELU(),
            nn.Linear(shape.projector, shape.llm_dim),
        )

    def encode(self, question: torch.Tensor, ego: EgoTensors) -> tuple[torch.Tensor, Any]:
        """The pooled embedding of one gated ego-graph, and what went into it."""
        node_logits, edge_logits = self.gates(question, ego.nodes, ego.edges)
        node_alpha, edge_alpha = torch.sigmoid(node_logits), torch.sigmoid(edge_logits)
        h = ego.nodes * node_alpha.unsqueeze(-1)
        edges = ego.edges * edge_alpha.unsqueeze(-1)
        attention = torch.zeros(0)
        for i, conv in enumerate(self.convs):
            h, (_, weights) = conv(h, ego.edge_index, edges, return_attention_weights=True)
            if i < len(self.convs) - 1:
                h = torch.nn.functional.elu(h)
            attention = weights[: ego.edge_index.shape[1]].mean(dim=-1)
        return h.mean(dim=0), (node_alpha, edge_alpha, attention)

    def forward(
        self, question: torch.Tensor, graphs: Sequence[EgoTensors]
    ) -> tuple[torch.Tensor, TokenInside]:
        """The graph token, (1, llm_dim), and per ego-graph what went into it."""
        pooled, inside = zip(*(self.encode(question, ego) for ego in graphs), strict=True)
        token = self.project(torch.stack(pooled).mean(dim=0)).unsqueeze(0)
        node_gates, edge_gates, attention = (
            [part.detach().numpy() for part in parts] for parts in zip(*inside, strict=True)
        )
        return token, TokenInside(node_gates, edge_gates, attention)


TOKEN_ENCODER = LearnedPart(
    TOKEN_CHECKPOINT, GraphTokenEncoder, GraphTokenShape, DEFAULT_MODEL, TRAIN_COMMAND
)


def load_token_encoder(root: Path | None = None) -> tuple[GraphTokenEncoder, dict[str, Any]]:
    """The trained graph-token encoder in `root` (default: the packaged one) and its card."""
    return load_learned(TOKEN_ENCODER, root)
