"""Train GNN-RAG's question-conditioned GNN on MetaQA dev (`kgviz train gnnrag [options]`).

The paper's node classification: a softmax over each question's dense subgraph (k-hop,
PageRank-pruned) gives an answer distribution, trained by cross entropy against the uniform
distribution over the gold answers in the subgraph (a few questions per step; questions whose
subgraph holds no gold answer skipped). Training stops early when the validation Hits@1 stops
improving, and the best epoch is saved with a card.
"""

from __future__ import annotations

import argparse
import math
import shlex
import sys
import time
from dataclasses import asdict

import numpy as np
import torch

from kgviz.checkpoint_store import save_checkpoint
from kgviz.reasoners.gnnrag.gnn import GNNReasoner, GNNShape, distribution_loss
from kgviz.reasoners.gnnrag.model import CHECKPOINT
from kgviz.reasoners.gnnrag.retrieval import GNNRAGRetrieval, graph_inputs
from kgviz.reasoners.gnnrag.samples import GNNRAGSample, build_samples, node_metrics
from kgviz.reasoners.text_features import TextEmbeddings, kg_text_embeddings
from kgviz.training.arguments import trainer_parser
from kgviz.training.early_stopping import EarlyStopping
from kgviz.training.progress import TrainingProgress
from kgviz.training.run import data_card, prepare

METRIC = "hits@1"


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
    parser.add_argument("--hops", type=int, default=defaults.hops, help="subgraph radius")
    parser.add_argument(
        "--max-nodes", type=int, default=defaults.max_nodes, help="subgraph size after PageRank"
    )
    return parser.parse_args(argv)


def train_epoch(
    model: GNNReasoner,
    optimizer: torch.optim.Optimizer,
    text: TextEmbeddings,
    samples: list[GNNRAGSample],
    order: np.ndarray,
    batch: int,
    progress: TrainingProgress,
    epoch: int,
) -> float:
    """One pass over `samples` in `order`, `batch` questions per step; the mean loss."""
    model.train()
    losses = []
    for start in progress.steps(epoch, range(0, len(order), batch)):
        chosen = [samples[i] for i in order[start : start + batch]]
        inputs = graph_inputs(
            text, [s.subgraph for s in chosen], [s.question for s in chosen], model.shape.use_names
        )
        labels = torch.from_numpy(np.concatenate([s.labels for s in chosen])).float()
        loss = distribution_loss(model(inputs), labels, inputs.graph)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    model.eval()
    return float(np.mean(losses))


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    data = prepare(args)
    rng, started = data.rng, data.started
    settings = GNNRAGRetrieval(hops=args.hops, max_nodes=args.max_nodes)
    shape = GNNShape(
        hidden=args.hidden, layers=args.layers, use_names=not args.no_names, rounds=args.rounds
    )
    kg = data.kg
    text = kg_text_embeddings(kg, progress=True)
    train = build_samples(kg, text, data.train, settings, True, "train questions")
    val = build_samples(kg, text, data.val, settings, True, "val questions")
    labelled = [s for s in train if s.labels.any()]
    prepared = time.perf_counter() - started

    model = GNNReasoner(shape).eval()
    model.standardise_questions(torch.stack([s.question.vector for s in labelled]))
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    history: list[dict] = []
    stopping: EarlyStopping[dict] = EarlyStopping(args.patience)
    with TrainingProgress(
        args.epochs, math.ceil(len(labelled) / args.batch), unit="step"
    ) as progress:
        for epoch in range(1, args.epochs + 1):
            loss = train_epoch(
                model,
                optimizer,
                text,
                labelled,
                rng.permutation(len(labelled)),
                args.batch,
                progress,
                epoch,
            )
            scores = node_metrics(model, text, val, settings)
            history.append({"epoch": epoch, "loss": round(loss, 5), **scores["all"]})
            progress.report(
                f"epoch {epoch}: loss {loss:.4f}, val hits@1 {scores['all'][METRIC]:.4f}, "
                f"recall {scores['all']['recall']:.4f}"
            )
            if stopping.should_stop(epoch, scores["all"][METRIC], scores, model):
                break
    best, best_state, best_epoch = stopping.best()

    elapsed = time.perf_counter() - started
    card = {
        "method": "gnnrag",
        "paper": "Mavromatis and Karypis, GNN-RAG: Graph Neural Retrieval for Large Language "
        "Model Reasoning (2024)",
        "model": {**shape.to_card(), "encoder": text.encoder.model_name},
        "retrieval": asdict(settings),
        "data": data_card(
            data,
            [s.record for s in train],
            [s.record for s in val],
            train_with_answers_in_subgraph=len(labelled),
        ),
        "labels": "subgraph nodes that are gold answers",
        "training": {
            "loss": "cross entropy of the softmax over a question's subgraph nodes against the "
            "uniform distribution over its gold answers, mean over questions",
            "optimizer": "Adam",
            "lr": args.lr,
            "batch_questions": args.batch,
            "seed": args.seed,
            "epochs_max": args.epochs,
            "epochs_run": len(history),
            "best_epoch": best_epoch,
            "patience": args.patience,
            "early_stopping": f"val {METRIC}",
            "threads": args.threads,
            "prepare_s": round(prepared, 1),
            "time_s": round(elapsed, 1),
            "history": history,
        },
        "validation": best,
        "versions": {"python": sys.version.split()[0], "torch": torch.__version__},
        "command": "kgviz train gnnrag " + shlex.join(argv),
    }
    folder = save_checkpoint(args.out, best_state, card, args.checkpoint_root)
    print(
        f"saved {folder} (best epoch {best_epoch}, val {METRIC} {best['all'][METRIC]:.4f}, "
        f"{elapsed:.0f}s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
