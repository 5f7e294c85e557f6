"""The Batch tab: several methods over N questions of a dataset, run by the eval runner
(`run_eval`, the same rows `kgviz eval` writes, resumable), then `kgviz report`'s tables with
the paired McNemar tests, and a per-question grid whose cells open their run."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import ipywidgets as widgets

from kgviz.app.ask import LiveReply
from kgviz.app.controls import Controls, Stopwatch, stop_on
from kgviz.app.kept import KeptRuns
from kgviz.app.method_checks import MethodChecks
from kgviz.app.render import close_tree, control_row, message
from kgviz.app.run_view import RunView
from kgviz.datasets import get_dataset
from kgviz.datasets.base import QARecord
from kgviz.errors import InputError, KgvizError
from kgviz.eval.batch import Batch
from kgviz.eval.mixing import mixed_setting
from kgviz.eval.plan import EvalPlan
from kgviz.eval.rows import ResultRow
from kgviz.eval.runner import run_eval
from kgviz.eval.tables import common_questions
from kgviz.reasoners.presets import DEFAULT_PRESET, PRESET_NAMES
from kgviz.reasoners.registry import method_label
from kgviz.viz.escape import esc
from kgviz.viz.report import report_tables, tables_html

DEFAULT_METHODS = ("simgrag", "kaping", "llm-only")
GRID_ROWS = 100  # questions shown in the grid (the tables count them all)
CELL = {True: ("✓", "#d4edda"), False: ("✗", "#f8d7da")}  # hits@1: mark and colour


RECENT = 5  # finished questions listed under the live reply


class BatchProgress(widgets.VBox):
    """A bar and a line (`n of total · hits@1 so far · about T left`), the question being
    answered (method, question, seconds so far) with its reply as it is written, the last few
    questions with their times, and a line per failed question as it fails: what `run_eval`
    reports as it goes (`EvalProgress`, `QuestionWatch`)."""

    def __init__(self) -> None:
        self.bar = widgets.IntProgress(min=0, max=1, layout=widgets.Layout(width="320px"))
        self.line = widgets.HTML()
        self.current = widgets.HTML()
        self.current.add_class("kgviz-batch-current")
        self.live = LiveReply()
        self.recent = widgets.HTML()
        self.failures = widgets.HTML()
        self.hits = self.written = 0
        self.asked = ""  # the question being answered, or the last one
        self.begun = 0  # questions started, those the results file had included
        self.spent = 0.0  # seconds the questions this run wrote took
        self.recent_lines: list[str] = []
        self.failed_lines: list[str] = []
        super().__init__(
            [
                widgets.HBox([self.bar, self.line]),
                self.current,
                self.live,
                self.recent,
                self.failures,
            ]
        )

    def start(self, total: int, done: int) -> None:
        self.bar.max, self.bar.value, self.begun = max(1, total), done, done
        self.hits = self.written = 0
        self.spent, self.recent_lines, self.failed_lines = 0.0, [], []
        self.failures.value = self.recent.value = self.current.value = self.asked = ""
        self.live.clear()
        self._say()

    def begin(self, method: str, record: QARecord) -> None:
        self.asked, self.begun = f"{method} on “{record.question}”", self.begun + 1
        self.current.value = message(f"now: {self.asked} (question {self.begun} of {self.bar.max})")
        self.live.start("")

    def call(self, stage: str) -> None:
        self.live.start(stage)

    def text(self, chunk: str) -> None:
        self.live.add(chunk)

    def failed(self, method: str, qid: str, error: str) -> None:
        self.failed_lines.append(f"{method} {qid} failed (left for the next run): {error}")
        self.failures.value = "".join(message(line, "warning") for line in self.failed_lines)

    def add(self, row: ResultRow) -> None:
        self.live.flush()
        self.bar.value += 1
        self.written += 1
        self.hits += bool(row["hit1"])
        seconds = float(row.get("seconds") or 0.0)
        self.spent += seconds
        mark = CELL[bool(row["hit1"])][0]
        question = row.get("question") or row["qid"]
        self.recent_lines = [
            f"{mark} {row['method']} · {question} · {seconds:.1f} s",
            *self.recent_lines,
        ][:RECENT]
        self.recent.value = "".join(message(line) for line in self.recent_lines)
        self._say()

    def finish(self) -> None:
        if self.asked:  # the last question and its reply stay in view
            self.current.value = message(f"last: {self.asked}")
        self._say()

    def _say(self) -> None:
        said = f"{self.bar.value} of {self.bar.max} answered"
        if self.written:
            said += f" · hits@1 of this run's {self.written}: {self.hits / self.written:.2f}"
            left = self.bar.max - self.bar.value
            if left:
                mean = self.spent / self.written
                said += f" · about {left * mean:.0f} s left ({mean:.1f} s a question)"
        self.line.value = message(said)


def cell_tooltip(row: ResultRow) -> str:
    """What a grid cell says on hover: the committed answers and, for a miss, where it failed."""
    answers = ", ".join(row.get("answers") or []) or "(no answer)"
    stage = row.get("failed_stage")
    return answers + (f" · missed at {stage}" if stage else "")


class BatchPanel(widgets.VBox):
    """Methods, how many questions (seed, hop counts, question types), Run and Stop, a progress
    bar; then where the rows are (and the commands that give the same), the report's tables and
    the grid. Runs are kept in the run store, so a cell opens its run below the grid."""

    def __init__(self, controls: Controls, kept: KeptRuns) -> None:
        self.controls, self.kept = controls, kept
        self.methods = MethodChecks(DEFAULT_METHODS)
        self.count = widgets.BoundedIntText(
            20, min=1, max=10_000, description="questions", layout=widgets.Layout(width="170px")
        )
        self.seed = widgets.IntText(0, description="seed", layout=widgets.Layout(width="140px"))
        self.split = widgets.Dropdown(description="split", layout=widgets.Layout(width="180px"))
        self.preset = widgets.Dropdown(
            options=PRESET_NAMES,
            value=DEFAULT_PRESET,
            description="preset",
            layout=widgets.Layout(width="180px"),
        )
        self.hops = widgets.SelectMultiple(description="hops", rows=3)
        self.qtypes = widgets.SelectMultiple(
            description="types", rows=3, layout=widgets.Layout(width="380px")
        )
        self.button = widgets.Button(description="Run batch", button_style="primary", icon="table")
        self.stop = widgets.Button(description="Stop", icon="stop", disabled=True)
        self.stopping = threading.Event()
        stop_on(self.stop)
        self.stop.on_click(lambda _: self.stopping.set())
        self.clock = Stopwatch()
        self.progress = BatchProgress()
        self.where = widgets.HTML()
        self.tables = widgets.HTML()
        self.grid = widgets.VBox()
        self.opened = widgets.VBox(layout=widgets.Layout(width="100%"))
        self.rows: list[ResultRow] = []
        self.records: list[QARecord] = []
        self._filters_of: tuple[str, str | None] | None = None  # the split the filters offer
        self.button.on_click(lambda _: self.run(background=True))
        self.split.observe(lambda _: self.offer_filters(), "value")
        controls.dataset.observe(lambda _: self.offer_splits(), "value")
        self.offer_splits()
        super().__init__(
            [
                widgets.HBox([*self.methods.boxes], layout=widgets.Layout(flex_flow="row wrap")),
                control_row([self.split, self.count, self.seed, self.preset]),
                widgets.HBox([self.hops, self.qtypes]),
                control_row([self.button, self.stop, self.clock]),
                self.progress,
                self.where,
                self.tables,
                self.grid,
                self.opened,
            ]
        )
        self.add_class("kgviz-batch")

    def offer_splits(self) -> None:
        """The chosen dataset's splits (dev first when it has one)."""
        try:
            splits = get_dataset(self.controls.dataset.value).available_splits()
        except KgvizError as error:
            self.where.value = message(str(error), "error")
            splits = []
        self.split.options = sorted(splits, key=lambda split: split != "dev")
        self.split.value = self.split.options[0] if splits else None
        self.offer_filters()

    def offer_filters(self) -> None:
        """The hop counts and question types the chosen split has, none selected (all); the
        split is read once per dataset and split chosen (picking both fires this twice)."""
        chosen = (self.controls.dataset.value, self.split.value)
        if chosen == self._filters_of:
            return
        self._filters_of = chosen
        records = self._split_records() if self.split.value else []
        hops = sorted({r.hops for r in records if r.hops})
        self.hops.options = [(f"{h}-hop", h) for h in hops]
        self.qtypes.options = sorted({r.qtype for r in records if r.qtype})

    def plan(self) -> EvalPlan:
        return EvalPlan(
            split=self.split.value,
            limit=self.count.value,
            sample_seed=self.seed.value,
            hops=frozenset(self.hops.value),
            qtypes=frozenset(self.qtypes.value),
        )

    def run(self, background: bool = False) -> None:
        """Run the ticked methods over the planned questions (resuming rows already written),
        then show the tables and grid; Stop ends it and shows what was answered."""
        self.controls.run(self._run, [self.button], background, self.stop)

    def _run(self) -> None:
        methods = self.methods.selected()
        if not methods or not self.split.value:
            raise InputError("tick at least one method and pick a split")
        session = self.controls.session()
        plan = self.plan()
        batch = Batch(session.dataset.name, session.llm, tuple(methods), plan, self.preset.value)
        path = batch.results_file(self.kept.store.root)
        self.records = plan.select(session.dataset.questions(plan.split))
        self.where.value = self._where_html(batch, path)
        self.stopping.clear()
        self.controls.status.value = message(
            f"batch: {len(methods)} methods × {len(self.records)} questions …"
        )
        try:
            with self.clock:
                summary = run_eval(
                    session,
                    methods,
                    plan,
                    path,
                    self.progress,
                    store=self.kept.store,
                    stop=self.stopping,
                    preset=batch.preset,
                    watch=self.progress,
                )
        finally:
            self.show(batch.rows(path, self.records))
            self.kept.on_change()  # the Runs tab lists the batch's runs
        failed = f", {summary['failed']} failed (run again to retry)" if summary["failed"] else ""
        self.controls.status.value = message(f"batch done{failed}", "ok")

    def show(self, rows: Sequence[ResultRow]) -> None:
        """The tables over the questions every method answered, and the grid of all rows."""
        self.rows = list(rows)
        shared = common_questions(self.rows)
        if not shared:
            self.tables.value = message("no question has an answer from every method yet")
        else:
            questions = len({row["qid"] for row in shared})
            note = (
                message(f"the tables count the {questions} questions every method answered")
                if len(shared) < len(self.rows)
                else ""
            )
            mixed = mixed_setting(shared)  # `kgviz report` refuses these without --allow-mixed
            if mixed:
                note += message(f"pooled across settings: {mixed}", "warning")
            self.tables.value = note + "".join(tables_html(report_tables(shared), level=4))
        self._draw_grid()

    def open_run(self, run_id: str) -> None:
        """Show the kept run `run_id` below the grid, every stage."""
        for shown in self.opened.children:
            close_tree(shown)
        self.opened.children = [RunView.of(self.kept.run(run_id))]

    def _draw_grid(self) -> None:
        by_cell = {(row["qid"], row["method"]): row for row in self.rows}
        methods = list(dict.fromkeys(row["method"] for row in self.rows))
        head = [widgets.HTML("<b>question</b>")] + [
            widgets.HTML(f"<b>{esc(method)}</b>") for method in methods
        ]
        cells: list[widgets.Widget] = list(head)
        for record in self.records[:GRID_ROWS]:
            cells.append(widgets.HTML(f'<div class="kgviz-batch-q">{esc(record.question)}</div>'))
            cells += [self._cell(by_cell.get((record.qid, method))) for method in methods]
        more = len(self.records) > GRID_ROWS
        self.grid.children = [
            widgets.GridBox(
                cells,
                layout=widgets.Layout(
                    grid_template_columns=f"minmax(240px, 2fr) repeat({len(methods)}, 1fr)",
                    grid_gap="2px 6px",
                ),
            ),
            *(
                [widgets.HTML(message(f"the grid shows the first {GRID_ROWS} questions"))]
                if more
                else []
            ),
        ]
        self.grid.add_class("kgviz-batch-grid")

    def _cell(self, row: ResultRow | None) -> widgets.Widget:
        """A question's cell for one method: ✓ or ✗ on hits@1, a click opening its run."""
        if row is None:  # failed, or stopped before it
            return widgets.HTML(
                '<span class="kgviz-batch-missing" style="color:#888">not answered</span>'
            )
        mark, colour = CELL[bool(row["hit1"])]
        button = widgets.Button(
            description=mark, tooltip=cell_tooltip(row), layout=widgets.Layout(width="auto")
        )
        button.style.button_color = colour
        run_id = row.get("run")
        if run_id is None:
            button.disabled = True
            button.tooltip += " · its run was not kept"
        else:
            button.on_click(lambda _: self._open_guarded(run_id))
        return button

    def _open_guarded(self, run_id: str) -> None:
        try:
            self.open_run(run_id)
        except KgvizError as error:
            self.controls.status.value = message(str(error), "error")

    def _split_records(self) -> list[QARecord]:
        try:
            return get_dataset(self.controls.dataset.value).questions(self.split.value)
        except KgvizError as error:
            self.where.value = message(str(error), "error")
            return []

    def _where_html(self, batch: Batch, path: Path) -> str:
        command = batch.commands(path, self.controls.llm.spec)
        labels = ", ".join(method_label(m) for m in batch.methods)
        return (
            message(
                f"{labels} over {len(self.records)} questions ({batch.plan.describe()}), preset "
                f"{batch.preset}; rows in {path}. The same from a shell:"
            )
            + f'<pre style="font-size:12px;margin:2px 0">{esc(command)}</pre>'
        )
