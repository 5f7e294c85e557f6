"""One finished run as the lab shows it: what was asked, the answer box, every stage's tab and
download links (the trace, a self-contained page, the evidence graph). The Ask panel, the
history and the compare panel's drill-down all draw a run this way."""

from __future__ import annotations

import base64
import json
import time

import ipywidgets as widgets

from kgviz.app.render import empty_tabs, message, replace_tabs, view_widget
from kgviz.reasoners.registry import method_label
from kgviz.run import Run
from kgviz.viz import stage_views
from kgviz.viz.answer_view import answer_html
from kgviz.viz.escape import esc
from kgviz.viz.export import evidence_graphml, evidence_json
from kgviz.viz.page import run_page


def run_label(run: Run) -> str:
    """`14:02:11 · simgrag (k=10) · llamacpp:qwen… · who directed …`"""
    when = time.strftime("%H:%M:%S", time.localtime(run.finished))
    return (
        f"{when} · {method_label(run.method)} ({run.options_text()}) · {run.llm} · "
        f"{run.trace.question}"
    )


def run_header(run: Run) -> str:
    return message(
        f"{method_label(run.method)} ({run.options_text()}) · {run.trace.dataset} · "
        f"{run.llm}\n{run.trace.question}"
    )


def download_link(label: str, filename: str, text: str, mime: str) -> str:
    """An HTML link that saves `text` as `filename` (a data URI: works offline, no server)."""
    data = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return (
        f'<a class="kgviz-download" download="{esc(filename)}" '
        f'href="data:{esc(mime)};charset=utf-8;base64,{data}" '
        f'style="margin-right:12px">{esc(label)}</a>'
    )


def run_downloads(run: Run) -> str:
    """Links to the run's trace (JSON, `Trace.load` reads it), page (HTML, every stage view,
    offline) and evidence graph (GraphML and node-link JSON)."""
    stem = f"kgviz-{run.method}-{time.strftime('%H%M%S', time.localtime(run.finished))}"
    links = [
        download_link(
            "trace (JSON)", f"{stem}.json", json.dumps(run.trace.saved()), "application/json"
        ),
        download_link("page (HTML)", f"{stem}.html", run_page(run), "text/html"),
    ]
    if run.trace.evidence:
        links += [
            download_link(
                "evidence (GraphML)",
                f"{stem}-evidence.graphml",
                evidence_graphml(run.trace),
                "application/xml",
            ),
            download_link(
                "evidence (JSON)",
                f"{stem}-evidence.json",
                evidence_json(run.trace),
                "application/json",
            ),
        ]
    return f'<div style="font:13px sans-serif;margin:4px 0">download: {"".join(links)}</div>'


def run_view(run: Run) -> widgets.VBox:
    """The whole run: header, answer box, download links and a tab per stage view."""
    tabs = empty_tabs()
    replace_tabs(
        tabs, {name: view_widget(view) for name, view in stage_views(run.trace, run.kg).items()}
    )
    box = widgets.VBox(
        [
            widgets.HTML(run_header(run)),
            widgets.HTML(answer_html(run)),
            widgets.HTML(run_downloads(run)),
            tabs,
        ]
    )
    box.add_class("kgviz-run")
    return box
