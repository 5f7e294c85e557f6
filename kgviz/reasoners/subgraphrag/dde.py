"""Directional Distance Encoding: the topic one-hot propagated by mean over in-edges (forward
rounds) and over out-edges (reverse rounds) of the candidate subgraph, all rounds concatenated."""

from __future__ import annotations

import torch
from torch_geometric.utils import scatter


def dde_width(rounds: int) -> int:
    """Features per entity: the 2-wide one-hot, `rounds` forward and `rounds` reverse results."""
    return 2 * (1 + 2 * rounds)


def entity_dde(
    num_nodes: int, heads: torch.Tensor, tails: torch.Tensor, topic: torch.Tensor, rounds: int
) -> torch.Tensor:
    """`(num_nodes, dde_width(rounds))` encodings over local node ids.

    `topic` is a boolean mask of the topic entities; the one-hot is `[is topic, is not topic]`.
    Forward round l+1 gives each node the mean of its heads' round-l vectors over the triples
    `(head, r, node)`; reverse rounds use the tails of `(node, r, tail)`. A node with no such
    triple gets zeros. Each triple counts once, so parallel triples weigh more.
    """
    start = torch.stack([topic, ~topic], dim=1).float()
    columns = [start]
    for source, target in ((heads, tails), (tails, heads)):
        state = start
        for _ in range(rounds):
            state = scatter(state[source], target, dim=0, dim_size=num_nodes, reduce="mean")
            columns.append(state)
    return torch.cat(columns, dim=1)


def triple_dde(node_dde: torch.Tensor, heads: torch.Tensor, tails: torch.Tensor) -> torch.Tensor:
    """`[DDE(head) ‖ DDE(tail)]` per triple."""
    return torch.cat([node_dde[heads], node_dde[tails]], dim=1)
