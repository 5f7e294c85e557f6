"""SimGRAG's pattern stage on held-aside MetaQA dev questions, with and without the relation hint.

For each hop count and setting: the evidence recall of SimGRAG's retrieval (the pattern is an
LLM call, the offline model's unless `--llm` says otherwise), how often the pattern was
malformed and re-asked, how often a repair still dropped a triple, and the pattern call's median
time. `relation_hint` adds the KG family's relation names to the pattern prompt, which the paper
leaves to future work; this measures what it is worth. Replies are cached, so a second run is
quick; topic entities are the dataset's marked ones.

    python bench/bench_simgrag_patterns.py [--per-hop 30] [--hops 2] [--llm local]
"""

from __future__ import annotations

import argparse
import os
import statistics
from pathlib import Path

from kgviz.datasets import get_dataset
from kgviz.datasets.splits import split_records
from kgviz.llm.select import make_llm
from kgviz.reasoners.base import ReasonerContext
from kgviz.reasoners.registry import make_reasoner
from kgviz.reasoners.simgrag.reasoner import PATTERN_REASK_STAGE
from kgviz.scoring.metrics import evidence_recall

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", default=os.environ.get("KGVIZ_DATA", str(REPO.parent / "shared" / "data"))
    )
    parser.add_argument("--per-hop", type=int, default=30)
    parser.add_argument("--hops", default="1,2,3")
    parser.add_argument("--llm", default="local")
    args = parser.parse_args()
    llm = make_llm(args.llm, cache_mode="rw")
    print(
        f"{'hint':<5} {'hops':>4} {'n':>4} {'ev. recall':>10} {'re-asked':>8} {'repaired':>8} "
        f"{'no pattern':>10} {'pattern s':>9}"
    )
    for hops in map(int, args.hops.split(",")):
        dataset = get_dataset(f"metaqa-{hops}hop", root=Path(args.data))
        records = split_records(dataset.questions("dev"))["heldout"][: args.per_hop]
        context = ReasonerContext(dataset, llm)
        for hint in (True, False):
            reasoner = make_reasoner("simgrag", context, relation_hint=hint)
            recall, reasked, repaired, missing, seconds = [], [], [], [], []
            for record in records:
                trace = reasoner.retrieve_only(record.question, record.topic_entities)
                pattern = trace.stages["pattern"]
                recall.append(evidence_recall(trace.evidence, record.answers))
                reasked.append(any(c.stage == PATTERN_REASK_STAGE for c in trace.llm_calls))
                repaired.append(
                    pattern is not None and any("dropped" in r for r in pattern.repairs)
                )
                missing.append(pattern is None)
                seconds.append(trace.llm_seconds)
            print(
                f"{'on' if hint else 'off':<5} {hops:>4} {len(records):>4} "
                f"{statistics.mean(recall):>10.3f} {statistics.mean(reasked):>8.2f} "
                f"{statistics.mean(repaired):>8.2f} {statistics.mean(missing):>10.2f} "
                f"{statistics.median(seconds):>9.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
