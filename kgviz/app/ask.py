"""The ask panel: pick a method and its parameters, ask, and watch each stage appear as a tab
(kept, and updated in place, as the run goes on)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import ipywidgets as widgets

from kgviz.app.controls import Controls, Stopwatch, stop_on
from kgviz.app.params import ParamForm
from kgviz.app.render import Progress, control_row, message
from kgviz.app.run_view import RunView, run_details
from kgviz.errors import InputError
from kgviz.kg.graph import KnowledgeGraph
from kgviz.llm.streaming import streaming_to
from kgviz.reasoners.grounding import GROUNDING
from kgviz.reasoners.presets import DEFAULT_PRESET
from kgviz.reasoners.registry import method_label, method_names, method_spec, reasoner_class
from kgviz.runs.run import Run, options_text
from kgviz.trace import Trace
from kgviz.viz import stage_views
from kgviz.viz.escape import esc

ON_UNGROUNDED = "on_ungrounded"  # the option the "abstain when not grounded" box sets


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

    def flush(self) -> None:
        """Draw the text so far now (the last part of a reply may have come within the wait)."""
        if self.stage or self.text:
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
    """Method picker, generated parameter form, Ask button, then the run: progress lines, the
    reply as it is written, the answer, downloads and stage tabs (`RunView`)."""

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
        self.abstain = widgets.Checkbox(
            value=False,
            description="abstain when not grounded",
            tooltip="no answer (and no LLM call) when what the question names is not in the KG:"
            " the methods' on_ungrounded=abstain",
            indent=False,
            layout=widgets.Layout(width="auto"),
        )
        self.abstain.observe(lambda _: self._follow_abstain(), "value")
        self.clock = Stopwatch()
        self.on_run: Callable[[Run], None] = lambda run: None  # the lab keeps every run
        self.progress = Progress()
        self.live = LiveReply()  # the reply being written, while it is written
        self.view = RunView([self.progress], self.live)
        self.trace: Trace | None = None
        self._drawn: set[str] = set()  # the stages of the run going on drawn so far
        self._forms: dict[str, ParamForm] = {}
        self._forms_lock = threading.Lock()  # a run's thread and a method switch may race
        self.method.observe(lambda _: self._build_params(), "value")
        self.method.observe(lambda _: self.check_inputs(), "value")
        controls.on_inputs(self.check_inputs)
        self.button.on_click(lambda _: self.ask(background=True))
        super().__init__(
            [
                control_row([self.method, self.button, self.stop, self.abstain, self.clock]),
                self.params,
                self.view,
            ]
        )
        self.add_class("kgviz-ask")  # for styling and browser tests
        self._build_params()

    def setting_for(self, method: str) -> tuple[str, dict[str, object]]:
        """The preset chosen and the options set over it in this panel's form when `method` is
        the one chosen, else the default preset alone (the compare panel runs each method as
        the Ask panel would)."""
        if method != self.method.value:
            return DEFAULT_PRESET, {}
        form = self.form_of(method)
        return form.preset.value, form.overrides()

    @property
    def form(self) -> ParamForm:
        """The parameter form of the method chosen now."""
        return self.form_of(self.method.value)

    def form_of(self, method: str) -> ParamForm:
        """`method`'s parameter form, built once (switching methods back keeps what was set)."""
        with self._forms_lock:
            if method not in self._forms:
                spec = method_spec(method)
                self._forms[method] = ParamForm(
                    spec.config_class(), spec.recording_options, spec.presets
                )
                self._forms[method].add_class(f"kgviz-params-{method}")
                self._follow_abstain(self._forms[method])
                field = self._forms[method].fields.get(ON_UNGROUNDED)
                if field is not None:  # the form's own field ticks the box, and back
                    field.observe(lambda change: self._abstain_from(change["new"]), "value")
            return self._forms[method]

    def _build_params(self) -> None:
        self.params.children = [self.form]

    def _follow_abstain(self, form: ParamForm | None = None) -> None:
        """Set `on_ungrounded` of `form` (default: every form built) as the box says."""
        wanted = "abstain" if self.abstain.value else "warn"
        for each in [form] if form is not None else list(self._forms.values()):
            field = each.fields.get(ON_UNGROUNDED)
            if field is not None and field.value != wanted:
                field.value = wanted

    def _abstain_from(self, value: str) -> None:
        if self.abstain.value != (value == "abstain"):
            self.abstain.value = value == "abstain"

    def check_inputs(self) -> None:
        """Grey the results out while the question, dataset, LLM or method differ from theirs."""
        self.view.check(self.controls.inputs(self.method.value))

    def ask(self, question: str | None = None, background: bool = False) -> None:
        """Run the chosen method on `question` (default: the question box), showing each stage
        in its tab as it finishes; `background` runs it in a thread (what the button does)."""
        if question is not None:
            self.controls.question.value = question
        self.controls.run(self._run, [self.button], background, self.stop)

    def _run(self) -> None:
        question = self.controls.question.value.strip()
        if not question:
            raise InputError("type a question first")
        session = self.controls.session()
        method = self.method.value  # read once: the picker may change while this runs
        preset, overrides = self.setting_for(method)
        record = self.controls.example()
        self.view.inputs = self.controls.inputs(method)
        self.trace, self._drawn = None, set()
        self.progress.clear()
        self.view.start(
            question,
            run_details(
                method,
                options_text(
                    {"preset": preset, **overrides} if preset != DEFAULT_PRESET else overrides
                ),
                session.dataset.name,
                session.llm,
            ),
            method,
        )
        self.controls.status.value = message("loading the models (once) …")
        started = time.monotonic()
        session.warm_up(reasoner_class(method).retrieves)  # apart from the run and its clock
        loaded = time.monotonic() - started
        if loaded >= 0.5:
            self.progress.add(f"models loaded in {loaded:.1f} s (not part of the run)")
        self.controls.status.value = message(
            f"{method} on {session.dataset.name}, {session.llm_reason}: running …"
        )
        kg = session.question_context(record).kg  # the question's own graph where it has one
        try:
            with self.clock, streaming_to(self.live.add, self.live.start):
                run = session.ask(
                    method,
                    record or question,
                    overrides,
                    listener=lambda name, trace: self._stage_done(name, trace, kg),
                    recording=True,
                    preset=preset,
                )
        except Exception:
            self.view.abandon()
            raise
        finally:
            self.live.clear()
        self.trace = run.trace
        self.view.finish(run)
        self.check_inputs()  # they may have changed while it ran
        self.controls.status.value = run_status(run)
        self.on_run(run)

    def _stage_done(self, name: str, trace: Trace, kg: KnowledgeGraph | None) -> None:
        self.progress.add(f"stage {name} done in {trace.timings[name]:.2f} s")
        grounding = trace.stages.get(GROUNDING) if name == GROUNDING else None
        if grounding is not None and not grounding.grounded:  # said before any answer
            self.controls.status.value = message(
                f"{trace.method}: not grounded in this KG: {grounding.warning()}", "warning"
            )
        if set(trace.stages) - self._drawn:  # a stage recorded since: draw the new view(s)
            self._drawn = set(trace.stages)
            self.view.show_stages(
                {
                    stage: view
                    for stage, view in stage_views(trace, kg).items()
                    if stage in trace.stages
                }
            )
