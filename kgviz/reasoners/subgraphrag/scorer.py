"""The triple scorer: an MLP over `[z_q ‖ z_h ‖ z_r ‖ z_t ‖ DDE]` giving one logit per triple, and
its checkpoint (safetensors weights plus a card)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from kgviz.checkpoints.loader import LearnedPart, load_learned
from kgviz.embed.encoder import DEFAULT_MODEL
from kgviz.reasoners.subgraphrag.dde import dde_width

CHECKPOINT = "subgraphrag"


@dataclass(frozen=True)
class ScorerShape:
    """Text vector size, DDE rounds per direction, and the hidden width of the MLP."""

    text_dim: int = 384
    rounds: int = 3
    hidden: int = 256

    @property
    def dde_dim(self) -> int:
        return 2 * dde_width(self.rounds)  # head and tail

    @property
    def input_dim(self) -> int:
        return 4 * self.text_dim + self.dde_dim


class TripleScorer(nn.Module):
    """Linear -> ReLU -> Linear -> ReLU -> Linear over the concatenated triple input.

    `forward` splits the first layer's weight by input block, so entity and relation vectors are
    projected once per subgraph rather than once per triple; `mlp(triple_inputs(...))` is the same
    function written on the concatenation.
    """

    def __init__(self, shape: ScorerShape = ScorerShape()) -> None:
        super().__init__()
        self.shape = shape
        self.first = nn.Linear(shape.input_dim, shape.hidden)
        self.rest = nn.Sequential(
            nn.ReLU(), nn.Linear(shape.hidden, shape.hidden), nn.ReLU(), nn.Linear(shape.hidden, 1)
        )

    def mlp(self, inputs: torch.Tensor) -> torch.Tensor:
        """Logits of `(m, input_dim)` concatenated inputs."""
        return self.rest(self.first(inputs)).squeeze(-1)

    def forward(
        self,
        question: torch.Tensor,
        nodes: torch.Tensor,
        relations: torch.Tensor,
        triples: torch.Tensor,
        dde: torch.Tensor,
    ) -> torch.Tensor:
        """Logits of `triples` `(m, 3)` over local rows of `nodes` and `relations`.

        `question` is `(text_dim,)`; `nodes` `(n, text_dim)` and `relations` `(r, text_dim)` hold
        the vectors the triples index; `dde` is `(m, dde_dim)`.
        """
        d = self.shape.text_dim
        w_q, w_h, w_r, w_t, w_s = self.first.weight.split([d, d, d, d, self.shape.dde_dim], dim=1)
        hidden = (
            self.first.bias
            + question @ w_q.T
            + (nodes @ w_h.T)[triples[:, 0]]
            + (relations @ w_r.T)[triples[:, 1]]
            + (nodes @ w_t.T)[triples[:, 2]]
            + dde @ w_s.T
        )
        return self.rest(hidden).squeeze(-1)


def triple_inputs(
    question: torch.Tensor,
    nodes: torch.Tensor,
    relations: torch.Tensor,
    triples: torch.Tensor,
    dde: torch.Tensor,
) -> torch.Tensor:
    """The paper's per-triple input `[z_q ‖ z_h ‖ z_r ‖ z_t ‖ DDE]`, shape `(m, input_dim)`."""
    return torch.cat(
        [
            question.expand(len(triples), -1),
            nodes[triples[:, 0]],
            relations[triples[:, 1]],
            nodes[triples[:, 2]],
            dde,
        ],
        dim=1,
    )


SCORER = LearnedPart(CHECKPOINT, TripleScorer, ScorerShape, DEFAULT_MODEL)


def load_scorer(root: Path | None = None) -> tuple[TripleScorer, dict[str, Any]]:
    """The trained scorer (evaluation mode) and its card; missing weights name the train command."""
    return load_learned(SCORER, root)
