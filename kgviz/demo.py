"""The main job (`make demo`): every method on a few built-in demo questions with the chosen LLM."""

from __future__ import annotations

import time
from pathlib import Path

from plotly.offline import get_plotlyjs

from kgviz.atomic import write_text_atomic
from kgviz.llm.errors import LLMError
from kgviz.reasoners.registry import method_names
from kgviz.run import Run
from kgviz.session import open_session
from kgviz.viz.escape import esc
from kgviz.viz.page import STYLE, run_sections


def run_demo(
    llm_spec: str = "auto", per_hop: int = 1, page: Path | None = Path("artifacts") / "demo.html"
) -> int:
    """Print what each stage produced and write `page` (every method's answers with their
    scores, and every stage view of each method's first question); return 0 when every method
    answered every question."""
    start = time.perf_counter()
    session = open_session("demo", llm_spec)
    kg = session.dataset.kg
    print(
        f"dataset: demo ({kg.num_entities} entities, {kg.num_relations} relations, "
        f"{kg.num_triples} triples)"
    )
    print(f"llm: {session.llm_reason}")
    index = session.context.index
    print(
        f"index: {len(index.entity_index)} entity and {len(index.relation_index)} relation vectors"
    )
    records = session.dataset.questions("dev")
    chosen = [r for hops in (1, 2, 3) for r in [r for r in records if r.hops == hops][:per_hop]]
    failures = 0
    summary: dict[str, list[int]] = {}
    runs: list[Run] = []
    for method in method_names():
        for record in chosen:
            print(f"\n[{method}] {record.question}")
            try:
                run = session.ask(method, record, recording=True)
            except LLMError as error:
                print(f"  error: {error}")
                failures += 1
                continue
            runs.append(run)
            trace, outcome = run.trace, run.outcome
            hit, recall = bool(outcome.score and outcome.score.hit1), bool(outcome.in_evidence)
            summary.setdefault(method, [0, 0, 0])
            summary[method][0] += hit
            summary[method][1] += recall
            summary[method][2] += 1
            print(f"  answer: {' '.join(trace.answer.split())[:200]}")
            print(
                f"  answers: {', '.join(trace.answers) or '(none)'} | "
                f"gold: {', '.join(record.answers)}"
            )
            print(
                f"  hit@1: {'yes' if hit else 'no'}; evidence: {len(trace.evidence)} triples "
                f"(gold inside: {'yes' if recall else 'no'}); "
                f"retrieval {trace.timings['retrieval']:.2f}s, total {trace.timings['total']:.2f}s"
            )
            for warning in outcome.warnings:
                print(f"  warning: {warning}")
    print("\nmethod        hits@1   gold in evidence")
    for method, (hits, recalls, n) in summary.items():
        print(f"{method:<13} {hits}/{n:<6} {recalls}/{n}")
    if page is not None:
        write_text_atomic(page, demo_page(runs))
        print(f"\npage: {page.resolve()}")
    print(f"\ndemo finished in {time.perf_counter() - start:.1f}s")
    return 1 if failures else 0


def demo_page(runs: list[Run]) -> str:
    """A table of every run's committed answers and scores, then every stage view of each
    method's first question (a page of all of them would run to tens of megabytes)."""
    rows, shown, sections = [], set(), []
    for run in runs:
        trace, outcome = run.trace, run.outcome
        score = outcome.score
        rows.append(
            "<tr>"
            + "".join(
                f"<td>{esc(cell)}</td>"
                for cell in (
                    trace.method,
                    trace.question,
                    ", ".join(trace.answers) or "(none)",
                    ", ".join(outcome.gold),
                    "yes" if score and score.hit1 else "no",
                    "yes" if score and score.hit else "no",
                    "yes" if outcome.in_evidence else "no",
                    f"{trace.cost_seconds:.1f}",
                )
            )
            + "</tr>"
        )
        if trace.method not in shown:
            shown.add(trace.method)
            sections.append(run_sections(run, plotly_js=False))
    head = "".join(
        f"<th>{esc(h)}</th>"
        for h in (
            "method",
            "question",
            "committed answers",
            "gold",
            "hits@1",
            "hit",
            "gold in evidence",
            "seconds (a cached reply at its first cost)",
        )
    )
    table = f'<table class="runs"><tr>{head}</tr>{"".join(rows)}</table>'
    style = STYLE + (
        "table.runs{border-collapse:collapse;font-size:13px}"
        "table.runs td,table.runs th{border:1px solid #ccc;padding:2px 6px}"
    )
    plotly_js = f'<script type="text/javascript">{get_plotlyjs()}</script>'
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>kgviz demo</title>"
        f"<style>{style}</style>{plotly_js}</head><body><h1>kgviz demo</h1>{table}"
        f"{''.join(sections)}</body></html>"
    )
