"""Train SubgraphRAG's triple scorer on MetaQA dev (`kgviz train subgraphrag [options]`).

Weak labels are the candidate triples on shortest topic -> answer paths; the loss is binary cross
entropy over every candidate of a question (one question per step); training stops early when the
validation triple recall@K stops improving, and the best epoch is saved with a card.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import torch

from kgviz.reasoners.subgraphrag.retrieval import SubgraphRAGRetrieval, score_subgraph
from kgviz.reasoners.subgraphrag.samples import build_samples, evaluate
from kgviz.reasoners.subgraphrag.scorer import CHECKPOINT, ScorerShape, TripleScorer
from kgviz.reasoners.text_features import kg_text_embeddings
from kgviz.training.arguments import trainer_parser
from kgviz.training.card import MethodCard, Outcome, save_trained
from kgviz.training.loop import Validation
from kgviz.training.run import data_card, training_run

ABOUT = MethodCard(
    method="subgraphrag",
    paper="Li, Miao and Li, Simple is Effective: The Roles of Graphs and Large Language Models in "
    "Knowledge-Graph-Based Retrieval-Augmented Generation (ICLR 2025)",
    labels="every candidate triple on some shortest undirected topic -> answer path inside the "
    f"candidate subgraph (at most {SubgraphRAGRetrieval.hops} hops; no cap on the number of "
    "paths)",
    loss="binary cross entropy with logits, mean over a question's candidates",
)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = trainer_parser(
        "subgraphrag", __doc__, per_hop=200, epochs=60, patience=10, checkpoint=CHECKPOINT
    )
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--hidden", type=int, default=ScorerShape.hidden)
    parser.add_argument(
        "--rounds", type=int, default=ScorerShape.rounds, help="DDE rounds per direction"
    )
    parser.add_argument(
        "--top-k",
        type=int,
        default=30,
        help="K of the validation triple recall@K that selects the epoch (default: the K the "
        "1.5B reader is given, top_k=auto)",
    )
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    with training_run(ABOUT.method, args, argv) as run:
        settings = SubgraphRAGRetrieval()
        shape = ScorerShape(hidden=args.hidden, rounds=args.rounds)
        kg = run.data.kg
        text = kg_text_embeddings(kg, progress=True)
        train = build_samples(
            kg, text, run.data.train, settings, shape.rounds, True, "train questions"
        )
        val = build_samples(kg, text, run.data.val, settings, shape.rounds, True, "val questions")
        labelled = [s for s in train if s.labels.any()]
        run.mark_prepared()

        scorer = TripleScorer(shape)
        metric = f"triple_recall@{args.top_k}"

        def loss_of(batch: np.ndarray) -> torch.Tensor:
            (sample,) = (labelled[i] for i in batch)  # one question per step
            logits = score_subgraph(scorer, text, sample.question, sample.subgraph)
            return torch.nn.functional.binary_cross_entropy_with_logits(
                logits, torch.from_numpy(sample.labels).float()
            )

        def validate() -> Validation:
            scores = evaluate(kg, scorer, text, val, [args.top_k])
            return Validation({metric: scores["all"][metric]}, scores)

        fitted = run.fit(scorer, loss_of, validate, len(labelled), metric, 1, "q")
        outcome = Outcome(
            retrieval=settings,
            data=data_card(run.data, train, val, train_with_labels=len(labelled)),
            validation=evaluate(kg, scorer, text, val, sorted({args.top_k, 30, 50, 100, 200})),
        )
        save_trained(ABOUT, run, scorer, text.encoder.model_name, fitted, outcome)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
