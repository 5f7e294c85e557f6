"""The topic-entity linker on datasets that mark their topics: how often it finds them.

The marks are removed, the linker (`link_entities`: exact, then normalised n-grams, then the
nearest entity vector) reads the plain question, and its entities are compared with the marked
ones. `top-1` counts questions whose first linked entity is a marked one, `any` those where some
linked entity is, `method` how the first link was made.

    KGVIZ_DATA=../shared/data python bench/bench_linker.py [--per-dataset 300]
        [--datasets metaqa-1hop,metaqa-2hop,metaqa-3hop,family,webqsp]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import numpy as np

from kgviz.datasets import get_dataset
from kgviz.errors import KgvizError
from kgviz.reasoners.base import ReasonerContext
from kgviz.reasoners.linking import EntityNames, link_entities

DEFAULT = "metaqa-1hop,metaqa-2hop,metaqa-3hop,family,webqsp"


def measure(name: str, count: int) -> str | None:
    """One table row, or None when the dataset is not here."""
    dataset = get_dataset(name)
    try:
        split = "dev" if "dev" in dataset.available_splits() else "test"
        records = [r for r in dataset.questions(split) if r.topic_entities]
    except KgvizError as error:
        print(f"{name}: skipped ({error})")
        return None
    rng = np.random.default_rng(0)
    chosen = [records[i] for i in sorted(rng.choice(len(records), min(count, len(records)), False))]
    context = ReasonerContext(dataset, llm=None)
    top1 = anywhere = 0
    methods: Counter[str] = Counter()
    started = time.perf_counter()
    for record in chosen:
        own = context.for_question(record)
        names = EntityNames(own.kg)
        marked = {names.canonical(t) for t in record.topic_entities} - {None}
        linking = link_entities(own, record.question)
        found = linking.names
        methods[linking.method] += 1
        top1 += bool(found) and found[0] in marked
        anywhere += bool(marked & set(found))
    seconds = (time.perf_counter() - started) / len(chosen)
    n = len(chosen)
    shares = ", ".join(f"{m} {c / n:.0%}" for m, c in methods.most_common())
    return (
        f"| {name} | {top1 / n:.3f} | {anywhere / n:.3f} | {shares} | {seconds * 1000:.1f} | {n} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-dataset", type=int, default=300)
    parser.add_argument("--datasets", default=DEFAULT)
    args = parser.parse_args()
    rows = [measure(name, args.per_dataset) for name in args.datasets.split(",")]
    print("| dataset | top-1 | any | first link by | ms per question | n |")
    print("|---|---|---|---|---|---|")
    print("\n".join(row for row in rows if row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
