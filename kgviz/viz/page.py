"""One run as a self-contained HTML page: the answer and every stage view, opening offline.

plotly.js is inlined once and each pyvis graph carries vis-network inline in its iframe, so the
page loads nothing from the network (`external_scripts` checks that).
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping

import plotly.graph_objects as go

from kgviz.reasoners.registry import trace_label
from kgviz.runs.run import Run
from kgviz.viz import stage_views
from kgviz.viz.answer_view import answer_html
from kgviz.viz.escape import esc

STYLE = (
    "body{font-family:sans-serif;margin:1.5em;max-width:1100px}"
    "section{margin:1.2em 0;border-top:1px solid #ddd}h2{font-size:1.1em}"
    ".answer{font-size:1.05em;background:#f6f8fa;padding:.6em;border-radius:4px}"
    "table.facts{border-collapse:collapse;font-size:13px;margin:.5em 0}"
    "table.facts th{text-align:left;color:#555;font-weight:normal;padding:1px 12px 1px 0}"
)


def external_scripts(page: str) -> list[str]:
    """What the page, or a document inside one of its frames, would load from elsewhere: the
    `src` of scripts and the `href` of linked stylesheets (none, for kgviz pages)."""
    pattern = r"<(?:script[^>]*\bsrc|link[^>]*\bhref)=[\"']?([^\"' >]+)"
    return [
        found
        for text in (page, html.unescape(page))
        for found in re.findall(pattern, text, flags=re.IGNORECASE)
    ]


def run_sections(run: Run, plotly_js: bool = True) -> str:
    """What names and judges `run` (its facts), the answer box and each stage view as HTML
    sections (plotly.js inlined with the first figure when `plotly_js`)."""
    trace = run.trace
    parts = [
        f"<h1>{esc(trace_label(trace))}</h1>",
        facts_table(run.facts()),
        answer_html(run),
    ]
    for name, view in stage_views(trace, run.kg).items():
        if isinstance(view, go.Figure):
            body = view.to_html(full_html=False, include_plotlyjs=plotly_js)
            plotly_js = False
        else:
            body = str(view)
        parts.append(f"<section><h2>{esc(name)}</h2>{body}</section>")
    return "".join(parts)


def facts_table(facts: Mapping[str, str]) -> str:
    """A two-column table of facts (name, value), every cell escaped; empty values left out."""
    rows = "".join(
        f"<tr><th>{esc(name)}</th><td>{esc(value)}</td></tr>"
        for name, value in facts.items()
        if value
    )
    return f'<table class="facts">{rows}</table>'


def run_page(run: Run) -> str:
    """A whole HTML page for one run."""
    title = f"kgviz · {run.trace.method} · {run.trace.question}"
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{esc(title)}</title>"
        f"<style>{STYLE}</style></head><body>{run_sections(run)}</body></html>"
    )
