"""GRAG's packaged gate validated again under the settings GRAG runs with today (no training):
the validation questions its card names (the same seeded draw), retrieved with the reasoner's
defaults (top-N ego-graphs, description budget), scored as `kgviz train grag` scores them.
With `--write`, the card's `validation` block is replaced by these figures (the weights, and so
the card's weights hash, are unchanged; the training history stays as it was).

    python bench/revalidate_grag_gate.py [--data ../shared/data] [--write]
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import asdict
from pathlib import Path

import numpy as np

from kgviz.checkpoints.store import CARD, CHECKPOINTS, card_text
from kgviz.datasets.splits import metaqa_training_parts
from kgviz.reasoners.grag.config import GRAGConfig
from kgviz.reasoners.grag.ego_index import build_ego_index
from kgviz.reasoners.grag.gate import CHECKPOINT, load_pruner
from kgviz.reasoners.grag.samples import GRAGRetrieval
from kgviz.reasoners.grag.train import per_hop, samples_of
from kgviz.storage.atomic import write_text_atomic

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = os.environ.get("KGVIZ_DATA", str(REPO.parent / "shared" / "data"))


def deployed() -> GRAGRetrieval:
    """The reasoner's defaults, as training questions are retrieved."""
    config = GRAGConfig()
    return GRAGRetrieval(
        config.hops, config.max_degree, config.top_n, config.scope_hops, config.description_tokens
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=DEFAULT_DATA)
    parser.add_argument("--write", action="store_true", help="rewrite the packaged card")
    args = parser.parse_args()
    pruner, card = load_pruner()
    parts, seed = card["data"]["parts"], card["training"]["seed"]
    metaqa, _, val = metaqa_training_parts(
        Path(args.data),
        parts["train"]["1-hop"],
        parts["val"]["1-hop"],
        np.random.default_rng(seed),
        split=card["data"]["split"],
    )
    settings = deployed()
    index = build_ego_index(metaqa.kg, settings.hops, settings.max_degree)
    samples = samples_of(index, val, settings, "val questions")
    scores = per_hop(pruner, index, samples, settings.description_tokens)
    validation = {"retrieval": asdict(settings), **scores}
    print(json.dumps(validation, indent=1))
    if args.write:
        card["validation"] = validation
        write_text_atomic(CHECKPOINTS / CHECKPOINT / CARD, card_text(card))
        print(f"rewrote {CHECKPOINTS / CHECKPOINT / CARD}")


if __name__ == "__main__":
    main()
