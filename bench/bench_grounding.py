"""Grounding on MetaQA: the distances that calibrate its threshold, and how often each method
flags a question as not grounded.

1. **Distances.** The nearest-entity distance (L2, unit vectors) of names absent from the KB
   (`probes/absent_names.json`: invented names, films and people newer than the KB) against
   those of true names of held-aside questions written as a user might (without a leading
   article, with two letters swapped). Printed as percentiles, with the share of each side a
   threshold puts right.
2. **Flags.** On the probe questions and on held-aside MetaQA questions typed without their
   brackets, the grounding each method records: for KAPING, SubgraphRAG, GNN-RAG and GRAG the
   `link_and_ground` step each calls first in its retrieval (the same code for the four, so it
   runs once for them); for SimGRAG its own retrieval (`retrieve_only`, `on_ungrounded=abstain`:
   it stops before its pattern's LLM call when the question's names already fail, else asks
   the LLM for the pattern and grounds its named nodes).

    KGVIZ_DATA=../shared/data python bench/bench_grounding.py --per-hop 100 \
        --methods kaping,subgraphrag,gnnrag,grag,simgrag --llm local
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from kgviz.datasets import get_dataset
from kgviz.eval.plan import EvalPlan
from kgviz.reasoners.base import ReasonerContext
from kgviz.reasoners.grounding import (
    GROUNDING,
    GROUNDING_DISTANCE,
    Grounding,
    check_texts,
    link_and_ground,
)
from kgviz.reasoners.linking import EntityNames, entity_names
from kgviz.reasoners.registry import make_reasoner
from kgviz.session import Session, open_session
from kgviz.trace import Trace

PROBES = Path(__file__).parent / "probes" / "absent_names.json"
SAMPLE_SEED = 0  # the held-aside order of `eval_metaqa_heldout.py`


def absent_names(names: EntityNames) -> tuple[list[str], list[str]]:
    """The probe's people and films that no KB name matches (exactly or normalised)."""
    probe = json.loads(PROBES.read_text(encoding="utf-8"))
    people = [n for n in probe["invented_people"] + probe["newer_people"] if not names.lookup(n)]
    films = [n for n in probe["invented_films"] + probe["newer_films"] if not names.lookup(n)]
    return people, films


def probe_questions(names: EntityNames) -> list[str]:
    """Each absent name in each question template of its kind, cycling through the templates."""
    probe = json.loads(PROBES.read_text(encoding="utf-8"))
    people, films = absent_names(names)
    return [
        templates[i % len(templates)].format(name)
        for group, templates in (
            (people, probe["person_templates"]),
            (films, probe["film_templates"]),
        )
        for i, name in enumerate(group)
    ]


def swapped(name: str) -> str:
    """`name` with two adjacent letters of its longest word swapped (a typing slip)."""
    words = name.split()
    longest = max(range(len(words)), key=lambda i: len(words[i]))
    word = words[longest]
    if len(word) < 4:
        return name
    middle = len(word) // 2
    words[longest] = word[: middle - 1] + word[middle] + word[middle - 1] + word[middle + 1 :]
    return " ".join(words)


def variants(topics: list[str]) -> list[str]:
    """True names as a user might write them: without a leading article, or with a slip."""
    found = [t.split(" ", 1)[1] for t in topics if t.startswith("The ") and " " in t]
    return found + [swapped(t) for t in topics if swapped(t) != t]


def percentiles(values: list[float]) -> str:
    marks = np.percentile(values, [5, 25, 50, 75, 95])
    return " / ".join(f"{m:.2f}" for m in marks)


def distances(context: ReasonerContext, topics: list[str]) -> None:
    names = entity_names(context)
    people, films = absent_names(names)
    absent_checked = check_texts(context.index, names, people + films, "probe")
    true_checked = check_texts(context.index, names, variants(topics), "probe")
    absent = [m.distance for m in absent_checked if m.how == "vector"]
    true = [m.distance for m in true_checked if m.how == "vector"]
    fuzzy_absent = sum(m.how == "fuzzy" for m in absent_checked)
    fuzzy_true = sum(m.how == "fuzzy" for m in true_checked)
    print(
        f"\nspelt nearly as a KG name (fuzzy, grounded): {fuzzy_absent} of {len(absent_checked)} "
        f"absent names, {fuzzy_true} of {len(true_checked)} varied true names"
    )
    print(
        f"\nnearest-entity L2 distance, percentiles 5/25/50/75/95 (threshold now "
        f"{GROUNDING_DISTANCE}):"
    )
    print(f"  absent names ({len(absent)}): {percentiles(absent)}")
    print(f"  true names, varied ({len(true)}): {percentiles(true)}")
    print("  threshold  absent flagged  varied true kept (fuzzy ones included)")
    for threshold in np.arange(0.35, 0.95, 0.05):
        flagged = sum(d > threshold for d in absent) / len(absent_checked)
        kept = (sum(d <= threshold for d in true) + fuzzy_true) / len(true_checked)
        print(f"  {threshold:9.2f}  {flagged:14.1%}  {kept:16.1%}")


def grounding_of(method: str, context: ReasonerContext, question: str) -> Grounding | None:
    """The grounding `method` records for `question` (see the module docstring)."""
    if method != "simgrag":
        trace = Trace(method=method, question=question)
        link_and_ground(trace, context, question, (), "warn")
        return trace.stages.get(GROUNDING)
    reasoner = make_reasoner("simgrag", context, on_ungrounded="abstain")
    return reasoner.retrieve_only(question).stages.get(GROUNDING)


def flag_rates(
    sessions: dict[int, Session],
    methods: list[str],
    probes: list[str],
    heldout: dict[int, list[str]],
) -> None:
    """Per method: the share of probe questions flagged, of held-aside ones grounded."""
    print("\nmethod        probe flagged        held-aside grounded (typed without brackets)")
    linkers = [m for m in methods if m != "simgrag"]
    for method in (["+".join(linkers)] if linkers else []) + [
        m for m in methods if m not in linkers
    ]:
        start = time.perf_counter()
        counts = []
        for questions in ({1: probes}, heldout):
            grounded = total = 0
            for hops, texts in questions.items():
                context = sessions[hops].context
                for text in texts:
                    grounding = grounding_of(method.split("+")[0], context, text)
                    grounded += bool(grounding is not None and grounding.grounded)
                    total += 1
            counts.append((grounded, total))
        (probe_ok, probe_n), (held_ok, held_n) = counts
        print(
            f"{method:<13} {(probe_n - probe_ok) / probe_n:6.1%} of {probe_n:<4}"
            f"        {held_ok / held_n:6.1%} of {held_n}"
            f"   ({time.perf_counter() - start:.0f} s)",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-hop", type=int, default=100)
    parser.add_argument("--methods", default="kaping,subgraphrag,gnnrag,grag")
    parser.add_argument("--llm", default="local", help="for SimGRAG's pattern")
    args = parser.parse_args()
    sessions = {h: open_session(f"metaqa-{h}hop", args.llm) for h in (1, 2, 3)}
    plan = EvalPlan("dev", part="heldout", limit=args.per_hop, sample_seed=SAMPLE_SEED)
    records = {h: plan.select(get_dataset(f"metaqa-{h}hop").questions("dev")) for h in (1, 2, 3)}
    context = sessions[1].context
    topics = sorted({t for rs in records.values() for r in rs for t in r.topic_entities})
    distances(context, topics)
    probes = probe_questions(entity_names(context))
    heldout = {h: [r.question for r in rs] for h, rs in records.items()}
    flag_rates(sessions, args.methods.split(","), probes, heldout)


if __name__ == "__main__":
    main()
