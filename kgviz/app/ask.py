"""The ask panel: pick a method and its parameters, ask, and watch each stage appear as a tab."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import ipywidgets as widgets

from kgviz.app.controls import Controls, Stopwatch, run_guarded, stop_on
from kgviz.app.params import ParamForm
from kgviz.app.render import (
    append_tabs,
    clear_tabs,
    empty_tabs,
    message,
    replace_tabs,
    selected_title,
    view_widget,
)
from kgviz.app.run_view import run_downloads
from kgviz.errors import KgvizError
from kgviz.llm.streaming import streaming_to
from kgviz.reasoners.grounding import GROUNDING
from kgviz.reasoners.registry import method_label, method_names, method_spec, reasoner_class
from kgviz.run import Run
from kgviz.trace import Trace
from kgviz.viz import stage_views
from kgviz.viz.answer_view import answer_html
from kgviz.viz.escape import esc


class LiveReply(widgets.HTML):
    """The LLM reply being written, shown as it streams in (redrawn at most 5 times a second)."""

    EVERY_S = 0.2

    def __init__(self) -> None:
        super().__init__()
        self.stage, self.text, self.shown_at = "", "", 0.0

    def start(self, stage: str) -> None:
        self.stage, self.text = stage, ""
        self._draw()

    def add(self, text: str) -> None:
        self.text += text
        if time.monotonic() - self.shown_at >= self.EVERY_S:
            self._draw()

    def clear(self) -> None:
        self.stage, self.text, self.value = "", "", ""

    def _draw(self) -> None:
        self.shown_at = time.monotonic()
        self.value = (
            f'<div class="kgviz-live" style="font:12px monospace;white-space:pre-wrap;'
            f'background:#f6f8fa;padding:4px;max-height:8em;overflow:auto">'
            f"<b>{esc(self.stage)}</b> ▸ {esc(self.text[-2000:])}</div>"
        )


def run_status(run: Run) -> str:
    """The status line of a finished run: answered (or abstained) in how long, and whether what
    the question names is in the KG."""
    trace, grounding = run.trace, run.outcome.grounding
    done = "abstained" if trace.abstained else "answered"
    text = f"{trace.method} {done} in {trace.timings['total']:.1f} s"
    if grounding is not None and not grounding.grounded:
        return message(f"{text}; not grounded in this KG: {grounding.warning()}", "warning")
    return message(text, "ok")


class AskPanel(widgets.VBox):
    """Method picker, generated parameter form, Ask button, progress lines, answer, stage tabs."""

    def __init__(self, controls: Controls, method: str = "simgrag") -> None:
        self.controls = controls
        names = method_names()
        self.method = widgets.Dropdown(
            options=[(method_label(n), n) for n in names],
            value=method if method in names else names[0],
            description="method",
        )
        self.params = widgets.Box()
        self.button = widgets.Button(description="Ask", button_style="primary", icon="play")
        self.stop = widgets.Button(description="Stop", icon="stop", disabled=True)
        stop_on(self.stop)
        self.clock = Stopwatch()
        self.downloads = widgets.HTML()
        self.on_run: Callable[[Run], None] = lambda run: None  # the lab keeps a history
        self.header = widgets.HTML()  # which question, method, options and LLM the results are
        self.progress = widgets.HTML()
        self.live = LiveReply()  # the reply being written, while it is written
        self.answer = widgets.HTML()
        self.stages = empty_tabs()
        self.trace: Trace | None = None
        self._forms: dict[str, ParamForm] = {}
        self._forms_lock = threading.Lock()  # a run's thread and a method switch may race
        self.method.observe(lambda _: self._build_params(), "value")
        self.button.on_click(lambda _: self.ask(background=True))
        super().__init__(
            [
                widgets.HBox([self.method, self.button, self.stop, self.clock]),
                self.params,
                self.header,
                self.progress,
                self.live,
                self.answer,
                self.downloads,
                self.stages,
            ]
        )
        self.add_class("kgviz-ask")  # for styling and browser tests
        self._build_params()

    def options_for(self, method: str) -> dict[str, object]:
        """The options set in this panel's form when `method` is the one chosen, else none
        (the compare panel runs each method as the Ask panel would)."""
        return self.form_of(method).overrides() if method == self.method.value else {}

    @property
    def form(self) -> ParamForm:
        """The parameter form of the method chosen now."""
        return self.form_of(self.method.value)

    def form_of(self, method: str) -> ParamForm:
        """`method`'s parameter form, built once (switching methods back keeps what was set)."""
        with self._forms_lock:
            if method not in self._forms:
                spec = method_spec(method)
                self._forms[method] = ParamForm(spec.config_class(), spec.recording_options)
                self._forms[method].add_class(f"kgviz-params-{method}")
            return self._forms[method]

    def _build_params(self) -> None:
        self.params.children = [self.form]

    def ask(self, question: str | None = None, background: bool = False) -> None:
        """Run the chosen method on `question` (default: the question box), adding a tab per
        stage as it finishes; `background` runs it in a thread (what the button does)."""
        if question is not None:
            self.controls.question.value = question
        run_guarded(self._run, self.controls.status, [self.button], background, self.stop)

    def _run(self) -> None:
        self.progress.value = self.answer.value = self.header.value = ""  # no stale results
        self.downloads.value = ""
        viewed = selected_title(self.stages)  # the tab to show again once the run is done
        clear_tabs(self.stages)
        self.trace = None
        question = self.controls.question.value.strip()
        if not question:
            raise KgvizError("type a question first")
        session = self.controls.session()
        method = self.method.value  # read once: the picker may change while this runs
        overrides = self.form_of(method).overrides()
        record = self.controls.example()
        options = ", ".join(f"{key}={value}" for key, value in overrides.items()) or "defaults"
        self.header.value = message(
            f"{method} ({options}) · {session.dataset.name} · {session.llm}\n{question}"
        )
        self.controls.status.value = message("loading the models (once) …")
        started = time.monotonic()
        session.warm_up(reasoner_class(method).retrieves)  # apart from the run and its clock
        loaded = time.monotonic() - started
        if loaded >= 0.5:
            self.progress.value = message(f"models loaded in {loaded:.1f} s (not part of the run)")
        self.controls.status.value = message(
            f"{method} on {session.dataset.name}, {session.llm_reason}: running …"
        )
        kg = session.question_context(record).kg  # the question's own graph where it has one
        with self.clock, streaming_to(self.live.add, self.live.start):
            run = session.ask(
                method,
                record or question,
                overrides,
                listener=lambda name, trace: self._stage_done(name, trace, kg),
                recording=True,
            )
        self.live.clear()
        self.trace = run.trace
        replace_tabs(
            self.stages,
            {
                name: view_widget(view)  # redrawn: later stages inform earlier
                for name, view in stage_views(run.trace, run.kg).items()
            },
            viewed,
        )
        self.answer.value = answer_html(run)
        self.downloads.value = run_downloads(run)
        self.on_run(run)
        self.controls.status.value = run_status(run)

    def _stage_done(self, name: str, trace: Trace, kg) -> None:
        self.progress.value += message(f"stage {name} done in {trace.timings[name]:.2f} s")
        grounding = trace.stages.get(GROUNDING) if name == GROUNDING else None
        if grounding is not None and not grounding.grounded:  # said before any answer
            self.controls.status.value = message(
                f"{trace.method}: not grounded in this KG: {grounding.warning()}", "warning"
            )
        shown = set(self.stages.titles)
        if any(stage not in shown for stage in trace.stages):
            self._show(
                {
                    stage: view
                    for stage, view in stage_views(trace, kg).items()
                    if stage in trace.stages
                }
            )

    def _show(self, views: dict[str, object]) -> None:
        """Add a tab for each view not shown yet, keeping the ones already there."""
        append_tabs(
            self.stages,
            {
                name: view_widget(view)
                for name, view in views.items()
                if name not in self.stages.titles
            },
        )
