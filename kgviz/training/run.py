"""What every trainer does around its own loop: the lock on the checkpoint folder it writes, the
seeded data, and the card's data block."""

from __future__ import annotations

import argparse
import shlex
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import torch

from kgviz.checkpoints.store import PACKAGED_DATASET, checkpoint_dir, user_checkpoints
from kgviz.datasets.base import Dataset, QARecord
from kgviz.datasets.registry import get_dataset
from kgviz.datasets.splits import (
    SplitPlan,
    hop_counts,
    metaqa_training_parts,
    require_metaqa,
    training_parts,
)
from kgviz.errors import DataError, InputError, StoreError
from kgviz.kg.graph import KnowledgeGraph
from kgviz.storage.exclusive_lock import exclusive_lock
from kgviz.training.arguments import QUICK
from kgviz.training.loop import Fitted, Schedule, Validation, fit
from kgviz.training.saved_progress import SavedProgress

LOCK = ".train.lock"  # in the checkpoint folder, held while a run trains into it


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
        """The graph the questions are read against (`Dataset.training_graph`); a KG behind an
        endpoint is refused (trainers read whole graphs)."""
        graph = self.dataset.training_graph(self.train + self.val)
        if graph.fetches:
            raise StoreError(
                f"{self.dataset.name} is read through a SPARQL endpoint; training reads whole "
                "graphs, so train on the KG in memory (kgviz data export, then a kb.nt folder) "
                "and ask over the endpoint with the weights it gives"
            )
        return graph


@dataclass
class TrainingRun:
    """One `kgviz train METHOD` run: its options and command, the checkpoint folder it holds the
    lock of, its data, and how long preparing the samples took."""

    method: str
    args: argparse.Namespace
    command: str
    folder: Path
    data: TrainingData
    prepare_s: float = 0.0

    def mark_prepared(self) -> None:
        """The samples are ready: the rest of the run's time is training."""
        self.prepare_s = self.data.seconds()

    def saved_progress(self) -> SavedProgress:
        """Where this run's resumable state goes: its checkpoint folder."""
        return SavedProgress(self.folder, self.command)

    def fit(
        self,
        model: torch.nn.Module,
        loss_of: Callable[[np.ndarray], torch.Tensor],
        validate: Callable[[], Validation],
        samples: int,
        metric: str,
        batch: int,
        unit: str,
    ) -> Fitted:
        """Train `model` on `samples` samples with the options' schedule, stopping early on
        `metric`, in the run's seeded order, resuming after the last finished epoch."""
        args = self.args
        schedule = Schedule(args.lr, batch, args.epochs, args.patience, metric)
        return fit(
            model, loss_of, validate, samples, schedule, self.data.rng, unit, self.saved_progress()
        )


@contextmanager
def training_run(method: str, args: argparse.Namespace, argv: list[str]) -> Iterator[TrainingRun]:
    """Hold the lock of the checkpoint folder for the whole run (a second run on it is refused,
    naming this one), then `prepare` the data. `args.checkpoint_root` defaults to the dataset's
    folder in the user cache."""
    if args.checkpoint_root is None:
        args.checkpoint_root = user_checkpoints(args.dataset)
    folder = checkpoint_dir(args.out, args.checkpoint_root)
    command = f"kgviz train {method} {shlex.join(argv)}".rstrip()
    with exclusive_lock(
        folder / LOCK,
        command,
        refused=lambda holder: (
            f"{folder} is being trained by {holder}; wait for that run to end "
            "or train into another --checkpoint-root or --out"
        ),
        unwritable=lambda error: f"cannot train into {folder}: {error.strerror}",
    ):
        yield TrainingRun(method, args, command, folder, prepare(args))


def prepare(args: argparse.Namespace) -> TrainingData:
    """Check the options shared by all trainers (`--quick` caps them), seed torch and numpy, and
    draw the questions."""
    import torch

    if args.quick:
        args.per_hop = min(args.per_hop, QUICK.per_hop)
        args.val_per_hop = min(args.val_per_hop, QUICK.val_per_hop)
        args.epochs = min(args.epochs, QUICK.epochs)
    if min(args.epochs, args.per_hop, args.val_per_hop) < 1:
        raise InputError("--epochs, --per-hop and --val-per-hop must be at least 1")
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
            raise DataError(f"{args.dataset} has no question files under {root}")
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
        raise DataError(
            f"{args.dataset}: too few questions to train on ({len(train)} train, {len(val)} val)"
        )
    return TrainingData(dataset, train, val, rng, started, args.dataset, split, linked)


class Sample(Protocol):
    """A training or validation sample, made from one question."""

    record: QARecord


def data_card(
    data: TrainingData, train: Sequence[Sample], val: Sequence[Sample], **extra: Any
) -> dict[str, Any]:
    """The `data` block of a checkpoint card: which questions of which dataset the `train` and
    `val` samples were made from."""
    return {
        "dataset": data.name,
        "split": data.split,
        "parts": {
            "train": hop_counts([s.record for s in train]),
            "val": hop_counts([s.record for s in val]),
        },
        "topics_linked": data.linked,
        **extra,
        "split_plan": asdict(SplitPlan()),
        "selection": "seeded sample per hop of the train and val parts; heldout never used",
    }
