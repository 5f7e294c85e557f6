"""The main job (`make demo`): every method on a few built-in demo questions with the chosen LLM."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from plotly.offline import get_plotlyjs

from kgviz.llm.errors import LLMError
from kgviz.reasoners.registry import method_names
from kgviz.runs.run import Run
from kgviz.session import open_session
from kgviz.storage.atomic import write_text_atomic
from kgviz.version import code_version
from kgviz.viz.escape import esc
from kgviz.viz.page import STYLE, facts_table, run_sections

TOTAL_COLUMNS = ("method", "hits@1", "hit", "F1", "gold in evidence", "seconds")
RUN_COLUMNS = (
    "method",
    "question",
    "committed answers",
    "gold",
    "hits@1",
    "hit",
    "F1",
    "gold in evidence",
    "seconds (a cached reply at its first cost)",
)


@dataclass
class Totals:
    """One method's results over the demo questions: how many runs, hits@1, hits, the sum of
    F1, the runs with a gold answer in the evidence (of those that retrieve) and seconds."""

    runs: int = 0
    hits1: int = 0
    hits: int = 0
    f1: float = 0.0
    in_evidence: int = 0
    retrieving: int = 0
    seconds: float = 0.0

    def add(self, run: Run) -> None:
        score, outcome = run.outcome.score, run.outcome
        self.runs += 1
        self.hits1 += bool(score and score.hit1)
        self.hits += bool(score and score.hit)
        self.f1 += score.f1 if score else 0.0
        if outcome.in_evidence is not None:
            self.retrieving += 1
            self.in_evidence += outcome.in_evidence
        self.seconds += run.trace.cost_seconds

    def cells(self) -> tuple[str, ...]:
        """hits@1, hit, mean F1, gold in evidence (— for a method that retrieves nothing) and
        seconds, as text."""
        evidence = f"{self.in_evidence}/{self.retrieving}" if self.retrieving else "—"
        return (
            f"{self.hits1}/{self.runs}",
            f"{self.hits}/{self.runs}",
            f"{self.f1 / max(self.runs, 1):.2f}",
            evidence,
            f"{self.seconds:.1f}",
        )


def method_totals(runs: list[Run]) -> dict[str, Totals]:
    """Each method's `Totals`, in the order the methods first ran."""
    totals: dict[str, Totals] = {}
    for run in runs:
        totals.setdefault(run.method, Totals()).add(run)
    return totals


def run_notes(runs: list[Run]) -> list[str]:
    """The notes of the runs (information holding for every question, such as a checkpoint
    trained on another dataset), each once, in the order they first came."""
    return list(dict.fromkeys(note for run in runs for note in run.outcome.notes))


def run_demo(
    llm_spec: str = "auto", per_hop: int = 1, page: Path | None = Path("artifacts") / "demo.html"
) -> int:
    """Print what each stage produced and write `page` (the demo's dataset, LLM, date and
    version, each method's totals, every run's answers with their scores, and every stage view
    of each method's first question); return 0 when every method answered every question."""
    start = time.perf_counter()
    session = open_session("demo", llm_spec)
    kg = session.dataset.kg
    header = {
        "dataset": (
            f"demo ({kg.num_entities} entities, {kg.num_relations} relations, "
            f"{kg.num_triples} triples)"
        ),
        "LLM": f"{session.llm} ({session.llm_reason})",
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "kgviz": code_version(),
    }
    for name, value in header.items():
        print(f"{name}: {value}")
    index = session.context.index
    print(
        f"index: {len(index.entity_index)} entity and {len(index.relation_index)} relation vectors"
    )
    records = session.dataset.questions("dev")
    chosen = [r for hops in (1, 2, 3) for r in [r for r in records if r.hops == hops][:per_hop]]
    failures = 0
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
            said = set(run_notes(runs))
            runs.append(run)
            print_run(run)
            for note in run.outcome.notes:
                if note not in said:
                    print(f"  note: {note}")
    print(f"\n{'method':<13} {'hits@1':<7} {'hit':<7} {'F1':<5} {'gold in evidence':<17} seconds")
    for method, totals in method_totals(runs).items():
        hits1, hit, f1, evidence, seconds = totals.cells()
        print(f"{method:<13} {hits1:<7} {hit:<7} {f1:<5} {evidence:<17} {seconds}")
    if page is not None:
        write_text_atomic(page, demo_page(runs, header))
        print(f"\npage: {page.resolve()}")
    print(f"\ndemo finished in {time.perf_counter() - start:.1f}s")
    return 1 if failures else 0


def gold_inside(run: Run) -> str:
    """Whether a gold answer reached the run's evidence: yes, no, or — (it retrieves nothing)."""
    reached = run.outcome.in_evidence
    return "—" if reached is None else ("yes" if reached else "no")


def print_run(run: Run) -> None:
    """A run's answer, committed answers against gold, scores, evidence, timings and warnings."""
    trace, outcome = run.trace, run.outcome
    score = outcome.score
    print(f"  answer: {' '.join(trace.answer.split())[:200]}")
    print(f"  answers: {', '.join(trace.answers) or '(none)'} | gold: {', '.join(outcome.gold)}")
    print(
        f"  hits@1: {'yes' if score and score.hit1 else 'no'}; "
        f"hit: {'yes' if score and score.hit else 'no'}; F1: {score.f1 if score else 0.0:.2f}; "
        f"evidence: {len(trace.evidence)} triples (gold inside: {gold_inside(run)}); "
        f"retrieval {trace.timings['retrieval']:.2f}s, total {trace.timings['total']:.2f}s"
    )
    for warning in outcome.run_warnings:
        print(f"  warning: {warning}")


def demo_page(runs: list[Run], header: Mapping[str, str]) -> str:
    """The demo's `header` (dataset, LLM, date, version) and notes, each method's totals, a row
    per run with its scores, then every stage view of each method's first question (a page of all
    of them would run to tens of megabytes)."""
    rows, shown, sections = [], set(), []
    for run in runs:
        trace, outcome = run.trace, run.outcome
        score = outcome.score
        rows.append(
            (
                trace.method,
                trace.question,
                ", ".join(trace.answers) or "(none)",
                ", ".join(outcome.gold),
                "yes" if score and score.hit1 else "no",
                "yes" if score and score.hit else "no",
                f"{score.f1:.2f}" if score else "—",
                gold_inside(run),
                f"{trace.cost_seconds:.1f}",
            )
        )
        if trace.method not in shown:
            shown.add(trace.method)
            sections.append(run_sections(run, plotly_js=False))
    totals = [(method, *t.cells()) for method, t in method_totals(runs).items()]
    notes = "".join(f'<p class="note">note: {esc(note)}</p>' for note in run_notes(runs))
    style = STYLE + (
        "table.runs{border-collapse:collapse;font-size:13px;margin:.6em 0}"
        "table.runs td,table.runs th{border:1px solid #ccc;padding:2px 6px}"
        "p.note{color:#555;font-size:13px}"
    )
    plotly_js = f'<script type="text/javascript">{get_plotlyjs()}</script>'
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>kgviz demo</title>"
        f"<style>{style}</style>{plotly_js}</head><body><h1>kgviz demo</h1>"
        f"{facts_table(header)}{notes}<h2>Totals per method</h2>"
        f"{html_table(TOTAL_COLUMNS, totals, 'totals')}<h2>Every run</h2>"
        f"{html_table(RUN_COLUMNS, rows, 'every-run')}{''.join(sections)}</body></html>"
    )


def html_table(columns: Sequence[str], rows: Sequence[Sequence[str]], name: str) -> str:
    """A table of `rows` under `columns`, every cell escaped."""
    head = "".join(f"<th>{esc(column)}</th>" for column in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{esc(cell)}</td>" for cell in row) + "</tr>" for row in rows
    )
    return f'<table class="runs {name}"><tr>{head}</tr>{body}</table>'
