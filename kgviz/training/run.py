"""What every trainer does before and after its own loop: seeded data, where the checkpoint goes,
and the card's data block."""

from __future__ import annotations

import argparse
import time
from dataclasses import asdict, dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from kgviz.checkpoint_store import PACKAGED_DATASET, user_checkpoints
from kgviz.datasets.base import Dataset, QARecord
from kgviz.datasets.registry import get_dataset
from kgviz.datasets.splits import (
    SplitPlan,
    hop_counts,
    metaqa_training_parts,
    require_metaqa,
    training_parts,
)
from kgviz.errors import KgvizError
from kgviz.kg.graph import KnowledgeGraph
from kgviz.training.arguments import QUICK


@dataclass
class TrainingData:
    """The seeded train and val questions, the generator that drew them, and the start time."""

    dataset: Dataset
    train: list[QARecord]
    val: list[QARecord]
    rng: np.random.Generator
    started: float
    name: str  # `metaqa` or the dataset's name
    split: str
    linked: int  # questions whose topic entities the linker supplied (none were marked)

    def seconds(self) -> float:
        return time.perf_counter() - self.started

    @cached_property
    def kg(self) -> KnowledgeGraph:
        """The graph the questions are read against (`Dataset.training_graph`)."""
        return self.dataset.training_graph(self.train + self.val)


def prepare(args: argparse.Namespace) -> TrainingData:
    """Check the options shared by all trainers (`--quick` caps them), seed torch and numpy,
    draw the questions, and point `args.checkpoint_root` at the dataset's folder unless given."""
    import torch

    if args.quick:
        args.per_hop = min(args.per_hop, QUICK.per_hop)
        args.val_per_hop = min(args.val_per_hop, QUICK.val_per_hop)
        args.epochs = min(args.epochs, QUICK.epochs)
    if min(args.epochs, args.per_hop, args.val_per_hop) < 1:
        raise KgvizError("--epochs, --per-hop and --val-per-hop must be at least 1")
    root = Path(args.data)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    if args.dataset == PACKAGED_DATASET:
        require_metaqa(root)
        split = args.split or "dev"
        metaqa, train, val = metaqa_training_parts(
            root, args.per_hop, args.val_per_hop, rng, split=split
        )
        dataset: Dataset = metaqa
    else:
        dataset = get_dataset(args.dataset, root)
        default = [dataset.training_split] if dataset.training_split else None
        splits = [args.split] if args.split else default or dataset.available_splits()
        if not splits:
            raise KgvizError(f"{args.dataset} has no question files under {root}")
        split = "+".join(splits)
        train, val = training_parts(
            [r for s in splits for r in dataset.questions(s)], args.per_hop, args.val_per_hop, rng
        )
    linked = sum(1 for record in train + val if not record.topic_entities)
    if linked:  # questions without marked topics: the linker's entities stand in
        from kgviz.reasoners.base import ReasonerContext
        from kgviz.reasoners.topic_links import with_linked_topics

        context = ReasonerContext(dataset, llm=None)
        train, val = with_linked_topics(context, train), with_linked_topics(context, val)
    if not train or not val:
        raise KgvizError(
            f"{args.dataset}: too few questions to train on ({len(train)} train, {len(val)} val)"
        )
    if args.checkpoint_root is None:
        args.checkpoint_root = user_checkpoints(args.dataset)
    return TrainingData(dataset, train, val, rng, started, args.dataset, split, linked)


def data_card(
    data: TrainingData, train: list[QARecord], val: list[QARecord], **extra: Any
) -> dict[str, Any]:
    """The `data` block of a checkpoint card: which questions of which dataset were used."""
    name = "MetaQA vanilla (1/2/3-hop)" if data.name == PACKAGED_DATASET else data.name
    return {
        "dataset": name,
        "split": data.split,
        "parts": {"train": hop_counts(train), "val": hop_counts(val)},
        "topics_linked": data.linked,
        **extra,
        "split_plan": asdict(SplitPlan()),
        "selection": "seeded sample per hop of the train and val parts; heldout never used",
    }
