"""Train GRAG's soft-pruning gate on MetaQA dev (`kgviz train grag [options]`).

Each question's top-N ego-graphs (around its topic entities) give the training elements: every
node and edge, labelled 1 when on a shortest topic -> answer path (topics and answers included).
The node and edge MLPs learn from the element-wise distance to the question with class-balanced
binary cross entropy; training stops early when the validation triple average precision stops
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
from torch.nn.functional import binary_cross_entropy_with_logits

from kgviz.checkpoint_store import save_checkpoint
from kgviz.datasets.base import QARecord
from kgviz.datasets.splits import HOPS
from kgviz.embed.cache import EmbeddingCache, embed_with_cache
from kgviz.reasoners.grag.ego_index import EgoIndex, build_ego_index
from kgviz.reasoners.grag.gate import CHECKPOINT, GateShape, SoftPruner
from kgviz.reasoners.grag.samples import (
    GRAGRetrieval,
    GRAGSample,
    build_samples,
    evaluate,
    sample_tensors,
)
from kgviz.training.arguments import trainer_parser
from kgviz.training.early_stopping import EarlyStopping
from kgviz.training.progress import TrainingProgress
from kgviz.training.run import data_card, prepare


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = trainer_parser(
        "grag", __doc__, per_hop=300, epochs=20, patience=3, checkpoint=CHECKPOINT
    )
    parser.add_argument("--batch", type=int, default=4, help="questions per optimiser step")
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--hidden", type=int, default=GateShape.hidden)
    return parser.parse_args(argv)


def samples_of(
    index: EgoIndex, records: list[QARecord], settings: GRAGRetrieval, desc: str
) -> list[GRAGSample]:
    vectors = embed_with_cache(
        index.encoder, [r.question for r in records], EmbeddingCache(index.encoder.model_name)
    )
    return build_samples(index, records, vectors, settings, desc)


def balanced_bce(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    positives = labels.sum().clamp(min=1.0)
    return binary_cross_entropy_with_logits(
        logits, labels, pos_weight=(len(labels) - positives) / positives
    )


def train_epoch(
    pruner: SoftPruner,
    optimizer: torch.optim.Optimizer,
    index: EgoIndex,
    samples: list[GRAGSample],
    batch: int,
    rng: np.random.Generator,
    progress: TrainingProgress,
    epoch: int,
) -> float:
    pruner.train()
    order = rng.permutation(len(samples))
    losses = []
    for start in progress.steps(epoch, range(0, len(order), batch)):
        node_logits, edge_logits, node_labels, edge_labels = [], [], [], []
        for i in order[start : start + batch]:
            nodes, edges = pruner(*sample_tensors(index, samples[i]))
            node_logits.append(nodes)
            edge_logits.append(edges)
            node_labels.append(torch.from_numpy(samples[i].node_labels))
            edge_labels.append(torch.from_numpy(samples[i].edge_labels))
        loss = balanced_bce(torch.cat(node_logits), torch.cat(node_labels)) + balanced_bce(
            torch.cat(edge_logits), torch.cat(edge_labels)
        )
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    pruner.eval()
    return float(np.mean(losses))


def per_hop(pruner: SoftPruner, index: EgoIndex, samples: list[GRAGSample], budget: int) -> dict:
    scores = {"all": evaluate(pruner, index, samples, budget)}
    for hops in HOPS:
        part = [s for s in samples if s.record.hops == hops]
        scores[f"{hops}-hop"] = evaluate(pruner, index, part, budget)
    return scores


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    data = prepare(args)
    rng, started = data.rng, data.started
    settings = GRAGRetrieval()
    index = build_ego_index(data.kg, settings.hops, settings.max_degree, progress=True)
    train = samples_of(index, data.train, settings, "train questions")
    val = samples_of(index, data.val, settings, "val questions")
    prepared = time.perf_counter() - started

    shape = GateShape(dim=index.node_vectors.shape[1], hidden=args.hidden)
    pruner = SoftPruner(shape)
    optimizer = torch.optim.Adam(pruner.parameters(), lr=args.lr)
    history: list[dict] = []
    stopping: EarlyStopping[dict] = EarlyStopping(args.patience)
    with TrainingProgress(
        args.epochs, math.ceil(len(train) / args.batch), unit="batch"
    ) as progress:
        for epoch in range(1, args.epochs + 1):
            loss = train_epoch(pruner, optimizer, index, train, args.batch, rng, progress, epoch)
            scores = evaluate(pruner, index, val, settings.description_tokens)
            history.append({"epoch": epoch, "loss": round(loss, 5), **scores})
            progress.report(f"epoch {epoch}: loss {loss:.4f}, val {scores}")
            if stopping.should_stop(epoch, scores["triple_ap"], scores, pruner):
                break
    best, best_state, best_epoch = stopping.best()
    pruner.load_state_dict(best_state)
    elapsed = time.perf_counter() - started
    card = {
        "method": "grag",
        "paper": "Hu et al., GRAG: Graph Retrieval-Augmented Generation (2024)",
        "model": pruner.card_model(index.encoder.model_name),
        "retrieval": asdict(settings),
        "data": data_card(data, [s.record for s in train], [s.record for s in val]),
        "labels": "nodes and edges of the retrieved ego-graphs on shortest undirected topic -> "
        "answer paths (at most 3 hops); topic and answer nodes",
        "training": {
            "loss": "class-balanced binary cross entropy, nodes + edges",
            "optimizer": "Adam",
            "lr": args.lr,
            "batch_questions": args.batch,
            "seed": args.seed,
            "epochs_max": args.epochs,
            "epochs_run": len(history),
            "best_epoch": best_epoch,
            "patience": args.patience,
            "early_stopping": "val triple_ap",
            "threads": args.threads,
            "prepare_s": round(prepared, 1),
            "time_s": round(elapsed, 1),
            "history": history,
        },
        "validation": {
            "description_tokens": settings.description_tokens,
            **per_hop(pruner, index, val, settings.description_tokens),
        },
        "versions": {"python": sys.version.split()[0], "torch": torch.__version__},
        "command": "kgviz train grag " + shlex.join(argv),
    }
    folder = save_checkpoint(args.out, pruner.state_dict(), card, args.checkpoint_root)
    print(f"saved {folder} (best epoch {best_epoch}, val {best}, {elapsed:.0f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
