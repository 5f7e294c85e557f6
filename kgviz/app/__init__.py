"""The interactive lab (ipywidgets): ask one method and watch its stages, compare several, and
reopen any run made since the lab opened (History).

`lab()` returns the whole app; `compare()` the same app opened on its compare panel. The app only
arranges: methods compute, traces record, `kgviz.viz` draws.
"""

from __future__ import annotations

from collections.abc import Sequence

import ipywidgets as widgets

from kgviz.app.ask import AskPanel
from kgviz.app.compare import ComparePanel
from kgviz.app.controls import Controls, SessionFactory
from kgviz.app.history import HistoryPanel
from kgviz.app.render import LAB_STYLE
from kgviz.llm.cache import CacheMode
from kgviz.session import Session, open_session


class Lab(widgets.VBox):
    """Shared controls above three tabs: Ask (one method, every stage), Compare, History."""

    def __init__(
        self,
        dataset: str = "demo",
        llm: str = "auto",
        cache_mode: CacheMode = "rw",
        methods: Sequence[str] | None = None,
        method: str = "simgrag",
        session_factory: SessionFactory = open_session,
        ollama: list[str] | None = None,
    ) -> None:
        self.controls = Controls(dataset, llm, cache_mode, session_factory, ollama)
        self.ask_panel = AskPanel(self.controls, method)
        self.compare_panel = ComparePanel(self.controls, methods, self.ask_panel.options_for)
        self.history = HistoryPanel()
        self.ask_panel.on_run = self.compare_panel.on_run = self.history.add
        self.panels = widgets.Tab(
            [self.ask_panel, self.compare_panel, self.history], titles=("Ask", "Compare", "History")
        )
        super().__init__([widgets.HTML(LAB_STYLE), self.controls, self.panels])
        self.add_class("kgviz-lab")

    def ask(self, question: str | None = None, background: bool = False) -> None:
        self.ask_panel.ask(question, background)

    def compare(self, question: str | None = None, background: bool = False) -> None:
        self.panels.selected_index = 1
        self.compare_panel.compare(question, background)

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
