"""One run as a self-contained HTML page: the answer and every stage view, opening offline.

plotly.js is inlined once and each pyvis graph carries vis-network inline in its iframe, so the
page loads nothing from the network (`external_scripts` checks that).
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import fields

import plotly.graph_objects as go

from kgviz.kg.graph import KnowledgeGraph
from kgviz.trace import Trace
from kgviz.viz import stage_views
from kgviz.viz.escape import esc

# Options that make a run record what its views draw (SimGRAG's search tree), for pages and the lab.
RECORDING_OPTIONS: dict[str, object] = {"record_tree": True}


def recording_options(method: str) -> dict[str, object]:
    """The `RECORDING_OPTIONS` that `method`'s config has."""
    from kgviz.reasoners.registry import reasoner_class

    known = {f.name for f in fields(reasoner_class(method).config_class)}
    return {key: value for key, value in RECORDING_OPTIONS.items() if key in known}


STYLE = (
    "body{font-family:sans-serif;margin:1.5em;max-width:1100px}"
    "section{margin:1.2em 0;border-top:1px solid #ddd}h2{font-size:1.1em}"
    ".answer{font-size:1.05em;background:#f6f8fa;padding:.6em;border-radius:4px}"
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


def _answer(trace: Trace, gold: Sequence[str] | None) -> str:
    from kgviz.eval.metrics import score_trace

    lines = [
        f"<b>Question</b>: {esc(trace.question)}",
        f"<b>Answer</b>: {esc(trace.answer)}",
        f"<b>Committed answers</b>: {esc(', '.join(trace.answers) or '(none)')}",
    ]
    if gold:
        score = score_trace(trace, gold)
        lines.append(
            f"<b>hits@1</b> {score.hit1:d} · hit {score.hit:d} · named "
            f"{score.named:d} · F1 {score.f1:.2f} (gold: {esc(', '.join(gold))})"
        )
    lines += [f'<span style="color:#a06000">warning: {esc(w)}</span>' for w in trace.warnings]
    return '<div class="answer">' + "<br>".join(lines) + "</div>"


def trace_sections(
    trace: Trace,
    kg: KnowledgeGraph | None = None,
    gold: Sequence[str] | None = None,
    plotly_js: bool = True,
) -> str:
    """The answer and each stage view of `trace` as HTML sections (plotly.js inlined with the
    first figure when `plotly_js`)."""
    parts = [f"<h1>{esc(trace.method)}</h1>", _answer(trace, gold)]
    for name, view in stage_views(trace, kg).items():
        if isinstance(view, go.Figure):
            body = view.to_html(full_html=False, include_plotlyjs=plotly_js)
            plotly_js = False
        else:
            body = str(view)
        parts.append(f"<section><h2>{esc(name)}</h2>{body}</section>")
    return "".join(parts)


def trace_page(
    trace: Trace, kg: KnowledgeGraph | None = None, gold: Sequence[str] | None = None
) -> str:
    """A whole HTML page for one run."""
    title = f"kgviz · {trace.method} · {trace.question}"
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{esc(title)}</title>"
        f"<style>{STYLE}</style></head><body>{trace_sections(trace, kg, gold)}</body></html>"
    )
