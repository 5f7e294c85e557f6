"""Train SubgraphRAG's triple scorer on MetaQA dev (`kgviz train subgraphrag [options]`).

Weak labels are the candidate triples on shortest topic -> answer paths; the loss is binary cross
entropy over every candidate of a question (one question per step); training stops early when the
validation triple recall@K stops improving, and the best epoch is saved with a card.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from dataclasses import asdict

import numpy as np
import torch

from kgviz.checkpoint_store import save_checkpoint
from kgviz.reasoners.subgraphrag.retrieval import SubgraphRAGRetrieval, score_subgraph
from kgviz.reasoners.subgraphrag.samples import build_samples, evaluate
from kgviz.reasoners.subgraphrag.scorer import (
    CHECKPOINT,
    ScorerShape,
    TripleScorer,
    scorer_card_model,
)
from kgviz.reasoners.text_features import kg_text_embeddings
from kgviz.training.arguments import trainer_parser
from kgviz.training.early_stopping import EarlyStopping
from kgviz.training.progress import TrainingProgress
from kgviz.training.run import data_card, prepare


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = trainer_parser(
        "subgraphrag", __doc__, per_hop=200, epochs=10, patience=2, checkpoint=CHECKPOINT
    )
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--hidden", type=int, default=ScorerShape.hidden)
    parser.add_argument(
        "--rounds", type=int, default=ScorerShape.rounds, help="DDE rounds per direction"
    )
    parser.add_argument(
        "--top-k", type=int, default=100, help="K of the validation triple recall@K"
    )
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    data = prepare(args)
    rng, started = data.rng, data.started
    settings, shape = SubgraphRAGRetrieval(), ScorerShape(hidden=args.hidden, rounds=args.rounds)
    kg = data.kg
    text = kg_text_embeddings(kg, progress=True)
    train = build_samples(kg, text, data.train, settings, shape.rounds, True, "train questions")
    val = build_samples(kg, text, data.val, settings, shape.rounds, True, "val questions")
    labelled = [s for s in train if s.labels.any()]
    prepared = time.perf_counter() - started

    scorer = TripleScorer(shape)
    optimizer = torch.optim.Adam(scorer.parameters(), lr=args.lr)
    metric = f"triple_recall@{args.top_k}"
    history: list[dict] = []
    stopping: EarlyStopping[dict] = EarlyStopping(args.patience)
    with TrainingProgress(args.epochs, len(labelled), unit="q") as progress:
        for epoch in range(1, args.epochs + 1):
            scorer.train()
            losses = []
            for i in progress.steps(epoch, rng.permutation(len(labelled))):
                sample = labelled[i]
                logits = score_subgraph(scorer, text, sample.question, sample.subgraph)
                loss = torch.nn.functional.binary_cross_entropy_with_logits(
                    logits, torch.from_numpy(sample.labels).float()
                )
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            scorer.eval()
            scores = evaluate(kg, scorer, text, val, [args.top_k])
            history.append(
                {
                    "epoch": epoch,
                    "loss": round(float(np.mean(losses)), 5),
                    metric: scores["all"][metric],
                }
            )
            progress.report(
                f"epoch {epoch}: loss {history[-1]['loss']:.4f}, "
                f"val {metric} {scores['all'][metric]:.4f}"
            )
            if stopping.should_stop(epoch, scores["all"][metric], scores, scorer):
                break
    best, best_state, best_epoch = stopping.best()
    scorer.load_state_dict(best_state)
    final = evaluate(kg, scorer, text, val, [50, 100, 200])
    elapsed = time.perf_counter() - started
    card = {
        "method": "subgraphrag",
        "paper": "Li, Miao and Li, Simple is Effective: The Roles of Graphs and Large Language "
        "Models in Knowledge-Graph-Based Retrieval-Augmented Generation (ICLR 2025)",
        "model": scorer_card_model(shape, text.encoder.model_name),
        "retrieval": asdict(settings),
        "data": data_card(
            data,
            [s.record for s in train],
            [s.record for s in val],
            train_with_labels=len(labelled),
        ),
        "labels": "every candidate triple on some shortest undirected topic -> answer path "
        f"inside the candidate subgraph (at most {settings.hops} hops; no cap on the "
        "number of paths)",
        "training": {
            "loss": "binary cross entropy with logits, mean over a question's candidates",
            "optimizer": "Adam",
            "lr": args.lr,
            "batch": "one question",
            "seed": args.seed,
            "epochs_max": args.epochs,
            "epochs_run": len(history),
            "best_epoch": best_epoch,
            "patience": args.patience,
            "early_stopping": f"val {metric}",
            "threads": args.threads,
            "prepare_s": round(prepared, 1),
            "time_s": round(elapsed, 1),
            "history": history,
        },
        "validation": final,
        "versions": {"python": sys.version.split()[0], "torch": torch.__version__},
        "command": f"kgviz train subgraphrag {shlex.join(argv)}".rstrip(),
    }
    folder = save_checkpoint(args.out, scorer.state_dict(), card, args.checkpoint_root)
    print(
        f"saved {folder} (best epoch {best_epoch}, val {metric} {best['all'][metric]:.4f}, "
        f"{elapsed:.0f}s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
