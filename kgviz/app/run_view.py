"""One run as the lab shows it: a heading (question, then method, options, dataset and LLM), the
answer box in a slot of fixed height (so that nothing below moves when the answer arrives),
download buttons (the trace, a self-contained page, the evidence graph) and a tab per stage view,
updated in place. The Ask panel fills one as a run goes; the history and the compare panel's
drill-down show finished runs in one."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence

import ipywidgets as widgets

from kgviz.app.downloads import DownloadFile, Downloads
from kgviz.app.headed import Headed
from kgviz.app.render import drop_stale, empty_tabs, mark_stale, update_tabs
from kgviz.reasoners.registry import method_label
from kgviz.runs.openinference import openinference_json
from kgviz.runs.run import Run
from kgviz.viz import stage_views
from kgviz.viz.answer_view import answer_html
from kgviz.viz.export import evidence_graphml, evidence_json
from kgviz.viz.page import run_page
from kgviz.viz.view_table import ViewOutput

# The answer box's height: reserved before the answer comes, scrolled within past it.
ANSWER_HEIGHT = "14em"


def run_label(run: Run) -> str:
    """`14:02:11 · simgrag (k=10) · llamacpp:qwen… · who directed …`"""
    when = time.strftime("%H:%M:%S", time.localtime(run.finished))
    return (
        f"{when} · {method_label(run.method)} ({run.options_text()}) · {run.llm} · "
        f"{run.trace.question}"
    )


def run_details(method: str, options: str, dataset: str, llm: str) -> str:
    """`simgrag (k=3) · dataset demo · LLM llamacpp:qwen…`: the line under a run's question."""
    return f"{method_label(method)} ({options}) · dataset {dataset} · LLM {llm}"


def run_files(run: Run) -> list[DownloadFile]:
    """The run's trace (JSON, `Trace.load` reads it), page (HTML, every stage view, offline),
    OpenInference spans (OTLP JSON) and evidence graph (GraphML and node-link JSON), each built
    when asked for."""
    stem = f"kgviz-{run.method}-{time.strftime('%H%M%S', time.localtime(run.finished))}"
    files = [
        DownloadFile(
            "trace (JSON)",
            f"{stem}.json",
            "application/json",
            lambda: json.dumps(run.trace.saved()),
        ),
        DownloadFile("page (HTML)", f"{stem}.html", "text/html", lambda: run_page(run)),
        DownloadFile(
            "trace (OpenInference)",
            f"{stem}-openinference.json",
            "application/json",
            lambda: json.dumps(openinference_json(run, stem)),
        ),
    ]
    if run.trace.evidence:
        files += [
            DownloadFile(
                "evidence (GraphML)",
                f"{stem}-evidence.graphml",
                "application/xml",
                lambda: evidence_graphml(run.trace),
            ),
            DownloadFile(
                "evidence (JSON)",
                f"{stem}-evidence.json",
                "application/json",
                lambda: evidence_json(run.trace),
            ),
        ]
    return files


class RunView(Headed):
    """The heading, then the run: `before` (e.g. progress lines), the answer slot (with `live`,
    the reply being written, above the answer), downloads and stage tabs."""

    def __init__(
        self, before: Sequence[widgets.Widget] = (), live: widgets.Widget | None = None
    ) -> None:
        self.answer = widgets.HTML()
        slot = widgets.VBox(
            [*([live] if live is not None else []), self.answer],
            layout=widgets.Layout(height=ANSWER_HEIGHT, overflow="auto"),
        )
        slot.add_class("kgviz-answer-slot")
        self.downloads = Downloads()
        self.stages = empty_tabs()
        self.method = ""  # the method of the run shown
        super().__init__(
            [*before, slot, self.downloads, self.stages],
            "no run yet: type a question and press Ask",
            "Ask",
        )
        self.add_class("kgviz-run")

    @classmethod
    def of(cls, run: Run) -> RunView:
        """A view of a finished run."""
        view = cls()
        view.finish(run)
        return view

    def start(self, question: str, details: str, method: str = "") -> None:
        """A run of `question` by `method` (`details`: `run_details`) begins: the previous
        run's answer and downloads go; its stage pages are greyed until this run's views
        replace them when it was the same method's, and closed when it was another's (whose
        stages this run does not have)."""
        self.title(question, details)
        self.answer.value = ""
        self.downloads.offer([])
        if method and method != self.method:
            update_tabs(self.stages, {}, complete=True)
        self.method = method or self.method
        mark_stale(self.stages)

    def show_stages(self, views: Mapping[str, ViewOutput]) -> None:
        """Show the views of the stages finished so far (pages updated in place)."""
        update_tabs(self.stages, views)

    def finish(self, run: Run) -> None:
        """Show the finished run: its answer, downloads and every stage view (a later stage can
        change what an earlier one shows; unchanged pages stay as they are)."""
        details = run_details(run.method, run.options_text(), run.trace.dataset, run.llm)
        self.title(run.trace.question, details)
        self.method = run.method
        self.answer.value = answer_html(run)
        self.downloads.offer(run_files(run))
        update_tabs(self.stages, stage_views(run.trace, run.kg), complete=True)

    def abandon(self) -> None:
        """The run failed: keep the stages it finished, close the previous run's pages."""
        drop_stale(self.stages)
