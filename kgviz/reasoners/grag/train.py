"""Train GRAG's soft-pruning gate on MetaQA dev (`kgviz train grag [options]`).

Each question's top-N ego-graphs (around its topic entities) give the training elements: every
node and edge, labelled 1 when on a shortest topic -> answer path (topics and answers included).
The node and edge MLPs learn from the element-wise distance to the question with class-balanced
binary cross entropy; training stops early when the validation triple average precision stops
improving, and the best epoch is saved with a card.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import torch
from torch.nn.functional import binary_cross_entropy_with_logits

from kgviz.datasets.base import QARecord
from kgviz.datasets.splits import HOPS
from kgviz.reasoners.grag.ego_index import EgoIndex, build_ego_index
from kgviz.reasoners.grag.gate import CHECKPOINT, GateShape, SoftPruner
from kgviz.reasoners.grag.samples import (
    GRAGRetrieval,
    GRAGSample,
    build_samples,
    evaluate,
    question_vectors,
    sample_tensors,
)
from kgviz.training.arguments import trainer_parser
from kgviz.training.card import MethodCard, Outcome, save_trained
from kgviz.training.loop import Validation
from kgviz.training.run import data_card, training_run

METRIC = "triple_ap"
ABOUT = MethodCard(
    method="grag",
    paper="Hu et al., GRAG: Graph Retrieval-Augmented Generation (2024)",
    labels="nodes and edges of the retrieved ego-graphs on shortest undirected topic -> answer "
    "paths (at most 3 hops); topic and answer nodes",
    loss="class-balanced binary cross entropy, nodes + edges",
)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = trainer_parser(
        "grag", __doc__, per_hop=300, epochs=20, patience=3, checkpoint=CHECKPOINT
    )
    parser.add_argument("--batch", type=int, default=4, help="questions per optimiser step")
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--hidden", type=int, default=GateShape.hidden)
    parser.add_argument(
        "--graph-token",
        action="store_true",
        help="train the graph token (the soft prompt) through a white-box reader instead "
        "(its options: kgviz train grag --graph-token --help)",
    )
    return parser.parse_args(argv)


def samples_of(
    index: EgoIndex, records: list[QARecord], settings: GRAGRetrieval, desc: str
) -> list[GRAGSample]:
    return build_samples(index, records, question_vectors(index, records), settings, desc)


def balanced_bce(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    positives = labels.sum().clamp(min=1.0)
    return binary_cross_entropy_with_logits(
        logits, labels, pos_weight=(len(labels) - positives) / positives
    )


def batch_loss(pruner: SoftPruner, index: EgoIndex, chosen: list[GRAGSample]) -> torch.Tensor:
    """The balanced loss over the nodes of `chosen`'s ego-graphs plus that over their edges."""
    node_logits, edge_logits, node_labels, edge_labels = [], [], [], []
    for sample in chosen:
        nodes, edges = pruner(*sample_tensors(index, sample))
        node_logits.append(nodes)
        edge_logits.append(edges)
        node_labels.append(torch.from_numpy(sample.node_labels))
        edge_labels.append(torch.from_numpy(sample.edge_labels))
    return balanced_bce(torch.cat(node_logits), torch.cat(node_labels)) + balanced_bce(
        torch.cat(edge_logits), torch.cat(edge_labels)
    )


def per_hop(pruner: SoftPruner, index: EgoIndex, samples: list[GRAGSample], budget: int) -> dict:
    scores = {"all": evaluate(pruner, index, samples, budget)}
    for hops in HOPS:
        part = [s for s in samples if s.record.hops == hops]
        scores[f"{hops}-hop"] = evaluate(pruner, index, part, budget)
    return scores


def main(argv: list[str]) -> int:
    if "--graph-token" in argv:
        from kgviz.reasoners.grag import train_token

        return train_token.main([a for a in argv if a != "--graph-token"])
    args = parse_args(argv)
    with training_run(ABOUT.method, args, argv) as run:
        settings = GRAGRetrieval()
        index = build_ego_index(run.data.kg, settings.hops, settings.max_degree, progress=True)
        train = samples_of(index, run.data.train, settings, "train questions")
        val = samples_of(index, run.data.val, settings, "val questions")
        run.mark_prepared()

        pruner = SoftPruner(GateShape(dim=index.dim, hidden=args.hidden))

        def loss_of(batch: np.ndarray) -> torch.Tensor:
            return batch_loss(pruner, index, [train[i] for i in batch])

        def validate() -> Validation:
            scores = evaluate(pruner, index, val, settings.description_tokens)
            return Validation(scores, scores)

        fitted = run.fit(pruner, loss_of, validate, len(train), METRIC, args.batch, "batch")
        budget = settings.description_tokens
        outcome = Outcome(
            retrieval=settings,
            data=data_card(run.data, train, val),
            validation={"description_tokens": budget, **per_hop(pruner, index, val, budget)},
        )
        save_trained(ABOUT, run, pruner, index.encoder.model_name, fitted, outcome)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
