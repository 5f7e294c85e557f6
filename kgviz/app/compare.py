"""The compare panel: one question through several reasoners in turn (same LLM), side by side."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence

import ipywidgets as widgets

from kgviz.app.controls import Controls, Stopwatch, stop_on
from kgviz.app.downloads import DownloadFile, Downloads
from kgviz.app.headed import Headed
from kgviz.app.method_checks import MethodChecks
from kgviz.app.render import (
    STALE,
    Progress,
    close_tree,
    control_row,
    drop_stale,
    empty_tabs,
    mark_stale,
    message,
    sync_tabs,
    update_tabs,
)
from kgviz.app.run_view import RunView
from kgviz.app.side_picker import SidePicker
from kgviz.datasets.base import QARecord
from kgviz.errors import InputError
from kgviz.reasoners.presets import DEFAULT_PRESET
from kgviz.reasoners.registry import method_label, trace_label
from kgviz.runs.run import FACTS, Run
from kgviz.session import Session
from kgviz.trace import Trace
from kgviz.viz import evidence_graph
from kgviz.viz.escape import esc
from kgviz.viz.marks import Marks
from kgviz.viz.side_by_side import MOST, side_by_side

# A row per method: what it answered and how that fared first, then what it cost; the reply
# itself (which may run long) last.
COLUMNS = (
    "method",
    "committed",
    "grounded",
    "hits@1",
    "hit",
    "F1",
    "evidence triples",
    "LLM calls",
    "prompt tokens",
    "latency (s)",
    "answer",
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
    cached = sum(call.cached for call in trace.llm_calls)
    if cached:
        latency += f" (cached; {trace.cost_seconds:.1f} first)"
    calls = f"{len(trace.llm_calls)}" + (f" ({cached} cached)" if cached else "")
    return (
        trace_label(trace),
        ", ".join(trace.answers) or "(none)",
        run.grounded_text() or "—",
        *verdicts,
        str(len(trace.evidence)),
        calls,
        str(trace.prompt_tokens),
        latency,
        trace.answer,
    )


# The compare CSV: what names and judges each run (`FACTS`), then the table's other columns.
CSV_ONLY = ("answer", "evidence triples", "LLM calls", "prompt tokens", "latency (s)")
CSV_COLUMNS = (*FACTS, *CSV_ONLY)


def comparison_csv(runs: Sequence[Run]) -> str:
    """One row per run under `CSV_COLUMNS` (a spreadsheet opens it): the question, dataset, gold,
    LLM, options, date and kgviz version travel with every row."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for run in runs:
        cells = dict(zip(COLUMNS, comparison_row(run), strict=True))
        writer.writerow([*run.facts().values(), *(cells[name] for name in CSV_ONLY)])
    return out.getvalue()


def comparison_table(rows: Sequence[Sequence[str]]) -> str:
    """An HTML table of rows under `COLUMNS`; every cell is escaped."""
    cell = 'style="border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top"'
    head = "".join(f"<th {cell}>{esc(name)}</th>" for name in COLUMNS)

    def td(index: int, value: str) -> str:
        if index < len(COLUMNS) and COLUMNS[index] == "answer":  # long replies scroll in place
            box = '<div style="max-width:28em;max-height:6.5em;overflow:auto">'
            return f"<td {cell}>{box}{esc(value)}</div></td>"
        return f"<td {cell}>{esc(value)}</td>"

    body = "".join(
        "<tr>" + "".join(td(i, value) for i, value in enumerate(row)) + "</tr>" for row in rows
    )
    return (
        f'<table class="kgviz-compare" style="border-collapse:collapse;font:13px sans-serif">'
        f"<tr>{head}</tr>{body}</table>"
    )


class ComparePanel(widgets.VBox):
    """Method checkboxes, a Compare button, then the results: a heading naming the question,
    dataset and LLM, the table, its CSV download, the evidence graphs of up to three methods side
    by side (`picker`; one layout, zoom followed), each method's evidence graph in a tab, and the
    picked methods' stages side by side (their tabs followed)."""

    def __init__(
        self,
        controls: Controls,
        methods: Sequence[str] | None = None,
        setting_for: Callable[[str], tuple[str, dict[str, object]]] | None = None,
    ) -> None:
        """`setting_for(method)` gives the preset and options a method runs with (the Ask
        panel's form)."""
        self.controls = controls
        self.setting_for = setting_for or (lambda method: (DEFAULT_PRESET, {}))
        self.methods = MethodChecks(methods)
        self.checks = self.methods.checks
        self.button = widgets.Button(description="Compare", button_style="primary", icon="columns")
        self.stop = widgets.Button(description="Stop", icon="stop", disabled=True)
        stop_on(self.stop)
        self.clock = Stopwatch()
        self.progress = Progress()
        self.table = widgets.HTML()
        self.downloads = Downloads()
        self.graphs = empty_tabs()
        self.picker = SidePicker(lambda picked: self.show_side())
        self.side = widgets.HTML()
        self.side.add_class("kgviz-compare-side")
        self.stages = widgets.Button(
            description="stages side by side", icon="columns", layout=widgets.Layout(width="auto")
        )
        self.stages.layout.display = "none"
        self.stages.on_click(lambda _: self.show_stages(*self.picker.picked))
        self.detail = widgets.Box(layout=widgets.Layout(width="100%"))
        self.runs: dict[str, Run] = {}
        self.on_run: Callable[[Run], None] = lambda run: None  # the lab keeps every run
        self.button.on_click(lambda _: self.compare(background=True))
        controls.on_inputs(self.check_inputs)
        self.results = Headed(
            [
                self.progress,
                self.table,
                self.downloads,
                self.picker,
                self.side,
                self.stages,
                self.detail,
                self.graphs,
            ],
            "no comparison yet: type a question and press Compare",
            "Compare",
        )
        self.results.add_class("kgviz-compare-results")
        super().__init__(
            [
                control_row([*self.methods.boxes, self.button, self.stop, self.clock]),
                self.results,
            ]
        )

    @property
    def traces(self) -> dict[str, Trace]:
        """Each compared method's trace."""
        return {method: run.trace for method, run in self.runs.items()}

    def selected(self) -> list[str]:
        return self.methods.selected()

    def compare(self, question: str | None = None, background: bool = False) -> None:
        """Run every ticked method on `question` (default: the question box), one after another,
        updating the table and evidence tabs as each finishes."""
        if question is not None:
            self.controls.question.value = question
        self.controls.run(self._run, [self.button], background, self.stop)

    def show_side(self) -> None:
        """The picked methods' evidence graphs side by side (none picked: nothing)."""
        picked = [method for method in self.picker.picked if method in self.runs]
        runs = [(method_label(method), self.runs[method].trace) for method in picked]
        kg = self.runs[picked[0]].kg if picked else None
        self.side.value = side_by_side(runs, kg) if runs else ""
        self.stages.layout.display = "" if runs else "none"

    @property
    def stage_views(self) -> list[RunView]:
        """The runs whose stages are shown side by side, left to right."""
        rows = self.detail.children
        return [column.children[0] for row in rows for column in row.children]

    def show_stages(self, *methods: str) -> None:
        """Every stage of each of `methods`' runs below the table, side by side, their stage
        tabs kept on the same stage (none: close them)."""
        for shown in self.detail.children:
            close_tree(shown)
        views = [RunView.of(self.runs[method]) for method in methods if method in self.runs]
        sync_tabs([view.stages for view in views])
        width = f"{100 / max(1, len(views)):.0f}%"
        columns = [
            widgets.VBox([view], layout=widgets.Layout(width=width, overflow="auto"))
            for view in views
        ]
        self.detail.children = [widgets.HBox(columns)] if columns else []

    def check_inputs(self) -> None:
        """Grey the results out while the question, dataset or LLM differ from theirs."""
        self.results.check(self.controls.inputs())

    def _run(self) -> None:
        question = self.controls.question.value.strip()
        methods = self.selected()
        if not question or not methods:
            raise InputError("type a question and tick at least one method")
        session = self.controls.session()
        record = self.controls.example()
        self.results.inputs = self.controls.inputs()
        self.results.title(question, f"dataset {session.dataset.name} · LLM {session.llm}")
        self.runs = {}
        self.progress.clear()
        self.table.add_class(STALE)  # until this comparison's first row replaces it
        self.downloads.offer([])
        self.show_stages()
        self.picker.offer([], [])
        self.show_side()
        mark_stale(self.graphs)
        self.controls.status.value = message("compare: loading the models (once) …")
        session.warm_up()
        try:
            with self.clock:
                for method in methods:
                    self._run_one(session, method, question, record)
        finally:
            drop_stale(self.graphs)
            if not self.runs:  # nothing replaced the previous table
                self.table.value = ""
                self.table.remove_class(STALE)
        runs = list(self.runs.values())
        self.downloads.offer(
            [
                DownloadFile(
                    "table (CSV)", "kgviz-compare.csv", "text/csv", lambda: comparison_csv(runs)
                )
            ]
        )
        self.controls.status.value = message(f"compared {len(methods)} methods", "ok")

    def _run_one(
        self, session: Session, method: str, question: str, record: QARecord | None
    ) -> None:
        self.controls.status.value = message(f"compare: running {method} …")
        preset, options = self.setting_for(method)
        run = session.ask(method, record or question, options, recording=True, preset=preset)
        self.runs[method] = run
        self.on_run(run)
        self.progress.add(f"{method} done in {run.trace.timings['total']:.1f} s")
        self.table.value = comparison_table([comparison_row(run) for run in self.runs.values()])
        self.table.remove_class(STALE)
        trace = run.trace
        graph = evidence_graph(trace.evidence, trace.answers, marks=Marks.of(trace))
        update_tabs(self.graphs, {method: graph})
        picked = self.picker.picked
        if trace.evidence and len(picked) < MOST:
            picked = [*picked, method]  # the first methods with evidence, until the row is full
        self.picker.offer([(method_label(m), m) for m in self.runs], picked)
        self.show_side()
