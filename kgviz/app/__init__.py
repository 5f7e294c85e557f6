"""The interactive lab (ipywidgets): ask one method and watch its stages, compare several on one
question or on a batch of a dataset's questions (the eval runner's rows and report), and find
every kept run again in the Runs tab (the run store: this session's runs and earlier ones),
to open, compare, annotate or regenerate on edited evidence.

`lab()` returns the whole app; `compare()` the same app opened on its compare panel. The app only
arranges: methods compute, traces record, `kgviz.viz` draws.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import ipywidgets as widgets

from kgviz.app.ask import AskPanel
from kgviz.app.batch import BatchPanel
from kgviz.app.compare import ComparePanel
from kgviz.app.controls import Controls, SessionFactory
from kgviz.app.kept import KeptRuns
from kgviz.app.render import LAB_STYLE, message
from kgviz.app.runs_panel import RunsPanel
from kgviz.errors import KgvizError
from kgviz.kg.graph import KnowledgeGraph
from kgviz.llm.cache import CacheMode
from kgviz.runs.run import Run
from kgviz.runs.store import RunStore
from kgviz.session import Session, open_session

log = logging.getLogger(__name__)


class Lab(widgets.VBox):
    """Shared controls above four tabs: Ask (one method, every stage), Compare, Batch, Runs.
    Every run the lab makes is kept in `store` (default: `KGVIZ_RUNS`, see `kgviz.runs.store`)."""

    def __init__(
        self,
        dataset: str = "demo",
        llm: str = "auto",
        cache_mode: CacheMode = "rw",
        methods: Sequence[str] | None = None,
        method: str = "simgrag",
        session_factory: SessionFactory = open_session,
        ollama: list[str] | None = None,
        store: RunStore | None = None,
    ) -> None:
        self.controls = Controls(dataset, llm, cache_mode, session_factory, ollama)
        self.ask_panel = AskPanel(self.controls, method)
        self.compare_panel = ComparePanel(self.controls, methods, self.ask_panel.setting_for)
        self.kept = KeptRuns(store or RunStore(), self._graph_of)
        self.runs = RunsPanel(self.kept, self.controls)
        self.batch = BatchPanel(self.controls, self.kept)
        self.ask_panel.on_run = self.compare_panel.on_run = self.keep
        self.panels = widgets.Tab(
            [self.ask_panel, self.compare_panel, self.batch, self.runs],
            titles=("Ask", "Compare", "Batch", "Runs"),
        )
        super().__init__([widgets.HTML(LAB_STYLE), self.controls, self.panels])
        self.add_class("kgviz-lab")

    def ask(self, question: str | None = None, background: bool = False) -> None:
        self.ask_panel.ask(question, background)

    def compare(self, question: str | None = None, background: bool = False) -> None:
        self.panels.selected_index = 1
        self.compare_panel.compare(question, background)

    def keep(self, run: Run) -> None:
        """Save `run` in the run store; a store that cannot be written is a warning in the status
        line, never the loss of the answer shown."""
        try:
            self.kept.keep(run)
        except KgvizError as error:
            log.warning("kgviz lab: a run was not kept: %s", error)
            self.controls.status.value = message(f"the run was not kept: {error}", "warning")

    def _graph_of(self, run: Run) -> KnowledgeGraph | None:
        """The graph of a run loaded from the store, where a session open here has it."""
        for (dataset, _), session in self.controls.sessions.items():
            if dataset == run.trace.dataset:
                return session.question_context(run.record).kg
        return None

    def reuse(self, session: Session) -> None:
        """Use an already open session (for this dataset and LLM) instead of opening another,
        so that the KG, its index and a loaded model are not loaded twice."""
        self.controls.sessions[(session.dataset.name, self.controls.llm.spec)] = session


def lab(
    dataset: str = "demo",
    llm: str = "auto",
    cache_mode: CacheMode = "rw",
    methods: Sequence[str] | None = None,
    session: Session | None = None,
) -> Lab:
    """The app on `dataset` with LLM spec `llm`; `methods` are ticked in the compare panel;
    `session`, opened with the same dataset and LLM, is reused."""
    app = Lab(dataset, llm, cache_mode, methods)
    if session is not None:
        app.reuse(session)
    return app


def compare(
    dataset: str = "demo",
    llm: str = "auto",
    cache_mode: CacheMode = "rw",
    methods: Sequence[str] | None = None,
    question: str = "",
    session: Session | None = None,
) -> Lab:
    """`lab(...)` opened on its compare panel, with `question` in the question box."""
    app = lab(dataset, llm, cache_mode, methods, session)
    app.panels.selected_index = 1
    app.controls.question.value = question
    return app


__all__ = ["AskPanel", "ComparePanel", "Controls", "Lab", "compare", "lab"]
