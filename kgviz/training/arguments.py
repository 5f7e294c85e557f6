"""Command-line options every trainer shares (`kgviz train METHOD --help`)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from kgviz.checkpoints.store import PACKAGED_DATASET
from kgviz.paths import data_root


@dataclass(frozen=True)
class QuickLimits:
    """What `--quick` caps."""

    per_hop: int = 100
    val_per_hop: int = 30
    epochs: int = 3


QUICK = QuickLimits()


def default_data_root() -> str:
    """The data root: `KGVIZ_DATA`, else the per-user data folder."""
    return str(data_root())


def trainer_parser(
    method: str,
    description: str | None,
    *,
    per_hop: int,
    epochs: int,
    patience: int,
    checkpoint: str,
) -> argparse.ArgumentParser:
    """Data, sample sizes, epochs with early stopping, seed, threads and the checkpoint name;
    each trainer adds its own model options."""
    parser = argparse.ArgumentParser(
        prog=f"kgviz train {method}",
        description=description,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--data",
        default=default_data_root(),
        help="folder holding the datasets (default: %(default)s)",
    )
    parser.add_argument(
        "--dataset",
        default=PACKAGED_DATASET,
        help="metaqa (its 1/2/3-hop questions over one KG) or any dataset name, "
        "e.g. pathquestion-2hop, wc2014, custom:<folder> (default: metaqa)",
    )
    parser.add_argument(
        "--split",
        default=None,
        help="the split to draw questions from (default: dev for MetaQA, train for "
        "webqsp and cwq, every split of other datasets)",
    )
    parser.add_argument("--per-hop", type=int, default=per_hop, help="training questions per hop")
    parser.add_argument("--val-per-hop", type=int, default=60, help="validation questions per hop")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"at most {QUICK.per_hop} training and {QUICK.val_per_hop} validation "
        f"questions per hop and {QUICK.epochs} epochs: minutes on 2 cores",
    )
    parser.add_argument("--epochs", type=int, default=epochs)
    parser.add_argument(
        "--patience", type=int, default=patience, help="epochs without improvement before stopping"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    parser.add_argument("--out", default=checkpoint, help="checkpoint name (default: %(default)s)")
    parser.add_argument(
        "--checkpoint-root",
        type=Path,
        default=None,
        help="folder to write the checkpoint in (default: the user cache's "
        "folder of the dataset, where the methods look first)",
    )
    return parser
