"""The compare panel: one question through several reasoners in turn (same LLM), side by side."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence

import ipywidgets as widgets

from kgviz.app.controls import Controls, Stopwatch, run_guarded, stop_on
from kgviz.app.render import append_tabs, clear_tabs, empty_tabs, message
from kgviz.app.run_view import download_link, run_view
from kgviz.datasets.base import QARecord
from kgviz.errors import KgvizError
from kgviz.reasoners.registry import method_label, method_names
from kgviz.run import Run
from kgviz.session import Session
from kgviz.trace import Trace
from kgviz.viz import evidence_graph
from kgviz.viz.escape import esc
from kgviz.viz.marks import Marks

COLUMNS = (
    "method",
    "answer",
    "committed",
    "hits@1",
    "hit",
    "F1",
    "evidence triples",
    "prompt tokens",
    "latency (s)",
)


def comparison_row(run: Run) -> tuple[str, ...]:
    """One table row (plain text) for a finished run; with gold answers, hits@1 (the first
    committed answer is gold), hit (some committed answer is) and F1."""
    trace, score = run.trace, run.outcome.score
    if score is None:
        verdicts = ("—", "—", "—")
    else:
        verdicts = ("yes" if score.hit1 else "no", "yes" if score.hit else "no", f"{score.f1:.2f}")
    latency = f"{trace.timings['total']:.1f}"
    if any(call.cached for call in trace.llm_calls):
        latency += f" (cached; {trace.cost_seconds:.1f} first)"
    return (
        method_label(trace.method),
        trace.answer,
        ", ".join(trace.answers) or "(none)",
        *verdicts,
        str(len(trace.evidence)),
        str(trace.prompt_tokens),
        latency,
    )


def comparison_csv(rows: Sequence[Sequence[str]]) -> str:
    """The rows under `COLUMNS` as CSV (a spreadsheet opens it)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(COLUMNS)
    writer.writerows(rows)
    return out.getvalue()


def comparison_table(rows: Sequence[Sequence[str]]) -> str:
    """An HTML table of rows under `COLUMNS`; every cell is escaped."""
    cell = 'style="border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top"'
    last = len(COLUMNS) - 1
    head = "".join(f"<th {cell}>{esc(name)}</th>" for name in COLUMNS)

    def td(index: int, value: str) -> str:
        if index < len(COLUMNS) and COLUMNS[index] == "answer":  # long replies scroll in place
            box = '<div style="max-width:28em;max-height:6.5em;overflow:auto">'
            return f"<td {cell}>{box}{esc(value)}</div></td>"
        style = cell[:-1] + ';white-space:nowrap"' if index == last else cell
        return f"<td {style}>{esc(value)}</td>"

    body = "".join(
        "<tr>" + "".join(td(i, value) for i, value in enumerate(row)) + "</tr>" for row in rows
    )
    return (
        f'<table class="kgviz-compare" style="border-collapse:collapse;font:13px sans-serif">'
        f"<tr>{head}</tr>{body}</table>"
    )


class ComparePanel(widgets.VBox):
    """Method checkboxes, a Compare button, the results table and each method's evidence graph."""

    def __init__(
        self,
        controls: Controls,
        methods: Sequence[str] | None = None,
        options_for: Callable[[str], dict[str, object]] | None = None,
    ) -> None:
        """`options_for(method)` gives the options a method runs with (the Ask panel's form)."""
        self.controls = controls
        self.options_for = options_for or (lambda method: {})
        chosen = set(method_names() if methods is None else methods)
        self.checks = {
            name: widgets.Checkbox(
                value=name in chosen,
                description=method_label(name),
                indent=False,
                layout=widgets.Layout(width="170px"),
            )
            for name in method_names()
        }
        self.button = widgets.Button(description="Compare", button_style="primary", icon="columns")
        self.stop = widgets.Button(description="Stop", icon="stop", disabled=True)
        stop_on(self.stop)
        self.clock = Stopwatch()
        self.progress = widgets.HTML()
        self.table = widgets.HTML()
        self.downloads = widgets.HTML()
        self.graphs = empty_tabs()
        self.drill = widgets.ToggleButtons(options=[], description="stages of", value=None)
        self.detail = widgets.Box(layout=widgets.Layout(width="100%"))
        self.traces: dict[str, Trace] = {}
        self.runs: dict[str, Run] = {}
        self.on_run: Callable[[Run], None] = lambda run: None  # the lab keeps a history
        self.button.on_click(lambda _: self.compare(background=True))
        self.drill.observe(lambda _: self.show_stages(self.drill.value), "value")
        super().__init__(
            [
                widgets.HBox([*self.checks.values(), self.button, self.stop, self.clock]),
                self.progress,
                self.table,
                self.downloads,
                self.graphs,
                self.drill,
                self.detail,
            ]
        )

    def selected(self) -> list[str]:
        return [name for name, check in self.checks.items() if check.value]

    def compare(self, question: str | None = None, background: bool = False) -> None:
        """Run every ticked method on `question` (default: the question box), one after another,
        updating the table and evidence tabs as each finishes."""
        if question is not None:
            self.controls.question.value = question
        run_guarded(self._run, self.controls.status, [self.button], background, self.stop)

    def show_stages(self, method: str | None) -> None:
        """Show every stage of `method`'s run below the table (None: close it)."""
        self.detail.children = [run_view(self.runs[method])] if method in self.runs else []

    def _run(self) -> None:
        question = self.controls.question.value.strip()
        methods = self.selected()
        if not question or not methods:
            raise KgvizError("type a question and tick at least one method")
        session = self.controls.session()
        record = self.controls.example()
        self.traces, self.runs = {}, {}
        self.progress.value = self.table.value = self.downloads.value = ""
        self.drill.options, self.detail.children = [], []
        clear_tabs(self.graphs)
        self.controls.status.value = message("compare: loading the models (once) …")
        session.warm_up()
        with self.clock:
            for method in methods:
                self._run_one(session, method, question, record)
        rows = self._rows()
        self.downloads.value = (
            '<div style="font:13px sans-serif">download: '
            + download_link("table (CSV)", "kgviz-compare.csv", comparison_csv(rows), "text/csv")
            + "</div>"
        )
        self.drill.options = [(method_label(m), m) for m in self.traces]
        self.drill.value = None
        self.controls.status.value = message(f"compared {len(methods)} methods", "ok")

    def _rows(self) -> list[tuple[str, ...]]:
        """The table rows of the runs so far."""
        return [comparison_row(run) for run in self.runs.values()]

    def _run_one(
        self, session: Session, method: str, question: str, record: QARecord | None
    ) -> None:
        self.controls.status.value = message(f"compare: running {method} …")
        run = session.ask(method, record or question, self.options_for(method), recording=True)
        self.traces[method] = run.trace
        self.runs[method] = run
        self.on_run(run)
        self.progress.value += message(f"{method} done in {run.trace.timings['total']:.1f} s")
        self.table.value = comparison_table(self._rows())
        trace = run.trace
        graph = evidence_graph(trace.evidence, trace.answers, marks=Marks.of(trace))
        append_tabs(self.graphs, {method: widgets.HTML(graph)})
