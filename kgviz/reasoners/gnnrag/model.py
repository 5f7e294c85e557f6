"""The trained GNNs' checkpoints: safetensors weights and a card in `kgviz/checkpoints/<folder>/`.

Two trainings of kgviz's GNN, chosen by the `gnn` option: `gnnrag` (entity-name vectors seed the
nodes, the reachability prior is in the score, 1,000-node subgraphs) and `gnnrag-paper`
(neither addition, 2,000-node subgraphs, as in the paper; the same data and schedule).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kgviz.checkpoints.loader import LearnedPart, load_learned
from kgviz.embed.encoder import DEFAULT_MODEL
from kgviz.reasoners.gnnrag.config import GNNChoice
from kgviz.reasoners.gnnrag.gnn import GNNReasoner, GNNShape

CHECKPOINT = "gnnrag"
PAPER_TRAINING = (  # the packaged GNN's data and schedule, without kgviz's two additions
    "--per-hop 1000 --epochs 8 --patience 3 --no-names --no-reach-prior --max-nodes 2000 "
    "--out gnnrag-paper"
)
GNNS: dict[str, LearnedPart[GNNReasoner]] = {
    "tuned": LearnedPart(CHECKPOINT, GNNReasoner, GNNShape, DEFAULT_MODEL),
    "paper": LearnedPart(
        CHECKPOINT,
        GNNReasoner,
        GNNShape,
        DEFAULT_MODEL,
        f"kgviz train gnnrag {PAPER_TRAINING}",
        "gnnrag-paper",
    ),
}


def load_gnn(
    root: Path | None = None, choice: GNNChoice = "tuned"
) -> tuple[GNNReasoner, dict[str, Any]]:
    """The trained GNN `choice` (evaluation mode) and its card; missing weights name the train
    command."""
    return load_learned(GNNS[choice], root)
