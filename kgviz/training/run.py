"""What every trainer does before and after its own loop: seeded data, and the card's data block."""

from __future__ import annotations

import argparse
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kgviz.datasets.base import QARecord
from kgviz.datasets.metaqa import MetaQA
from kgviz.datasets.splits import SplitPlan, hop_counts, metaqa_training_parts, require_metaqa
from kgviz.errors import KgvizError


@dataclass
class TrainingData:
    """The seeded train and val questions, the generator that drew them, and the start time."""

    dataset: MetaQA
    train: list[QARecord]
    val: list[QARecord]
    rng: np.random.Generator
    started: float

    def seconds(self) -> float:
        return time.perf_counter() - self.started


def prepare(args: argparse.Namespace) -> TrainingData:
    """Check the options shared by all trainers, seed torch and numpy, and draw the questions."""
    import torch

    root = Path(args.data)
    require_metaqa(root)
    if min(args.epochs, args.per_hop, args.val_per_hop) < 1:
        raise KgvizError("--epochs, --per-hop and --val-per-hop must be at least 1")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    dataset, train, val = metaqa_training_parts(root, args.per_hop, args.val_per_hop, rng)
    return TrainingData(dataset, train, val, rng, started)


def data_card(train: list[QARecord], val: list[QARecord], **extra: Any) -> dict[str, Any]:
    """The `data` block of a checkpoint card: which questions of MetaQA dev were used."""
    return {
        "dataset": "MetaQA vanilla (1/2/3-hop)", "split": "dev",
        "parts": {"train": hop_counts(train), "val": hop_counts(val)},
        **extra,
        "split_plan": asdict(SplitPlan()),
        "selection": "seeded sample per hop of the train and val parts; heldout never used",
    }
