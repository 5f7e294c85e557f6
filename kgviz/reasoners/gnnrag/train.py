"""Train GNN-RAG's question-conditioned GNN on MetaQA dev (`kgviz train gnnrag [options]`).

The paper's node classification: a softmax over each question's dense subgraph (k-hop,
PageRank-pruned) gives an answer distribution, trained by cross entropy against the uniform
distribution over the gold answers in the subgraph (a few questions per step; questions whose
subgraph holds no gold answer skipped). Training stops early when the validation Hits@1 stops
improving, and the best epoch is saved with a card.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import torch

from kgviz.reasoners.gnnrag.gnn import GNNReasoner, GNNShape, distribution_loss
from kgviz.reasoners.gnnrag.model import CHECKPOINT
from kgviz.reasoners.gnnrag.retrieval import GNNRAGRetrieval, graph_inputs
from kgviz.reasoners.gnnrag.samples import build_samples, node_metrics
from kgviz.reasoners.text_features import kg_text_embeddings
from kgviz.training.arguments import trainer_parser
from kgviz.training.card import MethodCard, Outcome, save_trained
from kgviz.training.loop import Validation
from kgviz.training.run import data_card, training_run

METRIC = "hits@1"
ABOUT = MethodCard(
    method="gnnrag",
    paper="Mavromatis and Karypis, GNN-RAG: Graph Neural Retrieval for Large Language Model "
    "Reasoning (2024)",
    labels="subgraph nodes that are gold answers",
    loss="cross entropy of the softmax over a question's subgraph nodes against the uniform "
    "distribution over its gold answers, mean over questions",
)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = trainer_parser(
        "gnnrag", __doc__, per_hop=400, epochs=15, patience=4, checkpoint=CHECKPOINT
    )
    defaults, shape = GNNRAGRetrieval(), GNNShape()
    parser.add_argument("--lr", type=float, default=5e-3)
    parser.add_argument("--batch", type=int, default=8, help="questions per optimiser step")
    parser.add_argument("--hidden", type=int, default=shape.hidden)
    parser.add_argument("--layers", type=int, default=shape.layers, help="steps per round")
    parser.add_argument(
        "--rounds",
        type=int,
        default=2,
        help="reasoning rounds (ReaRev's adaptive instruction update between them)",
    )
    parser.add_argument(
        "--no-names", action="store_true", help="do not seed nodes with name vectors"
    )
    parser.add_argument(
        "--no-reach-prior",
        action="store_true",
        help="score nodes by the readout alone, without kgviz's reachability prior (as the "
        "paper's GNN does; run it with gnn=paper after --out gnnrag-paper)",
    )
    parser.add_argument("--hops", type=int, default=defaults.hops, help="subgraph radius")
    parser.add_argument(
        "--max-nodes", type=int, default=defaults.max_nodes, help="subgraph size after PageRank"
    )
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    with training_run(ABOUT.method, args, argv) as run:
        settings = GNNRAGRetrieval(hops=args.hops, max_nodes=args.max_nodes)
        shape = GNNShape(
            hidden=args.hidden,
            layers=args.layers,
            use_names=not args.no_names,
            rounds=args.rounds,
            reach_prior=not args.no_reach_prior,
        )
        kg = run.data.kg
        text = kg_text_embeddings(kg, progress=True)
        train = build_samples(kg, text, run.data.train, settings, True, "train questions")
        val = build_samples(kg, text, run.data.val, settings, True, "val questions")
        labelled = [s for s in train if s.labels.any()]
        run.mark_prepared()

        model = GNNReasoner(shape).eval()
        model.standardise_questions(torch.stack([s.question.vector for s in labelled]))

        def loss_of(batch: np.ndarray) -> torch.Tensor:
            chosen = [labelled[i] for i in batch]
            inputs = graph_inputs(
                text, [s.subgraph for s in chosen], [s.question for s in chosen], shape.use_names
            )
            labels = torch.from_numpy(np.concatenate([s.labels for s in chosen])).float()
            return distribution_loss(model(inputs), labels, inputs.graph)

        def validate() -> Validation:
            scores = node_metrics(model, text, val, settings)
            return Validation(scores["all"], scores)

        fitted = run.fit(model, loss_of, validate, len(labelled), METRIC, args.batch, "step")
        outcome = Outcome(
            retrieval=settings,
            data=data_card(run.data, train, val, train_with_answers_in_subgraph=len(labelled)),
            validation=fitted.best.scores,
        )
        save_trained(ABOUT, run, model, text.encoder.model_name, fitted, outcome)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
