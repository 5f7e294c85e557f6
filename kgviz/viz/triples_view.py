"""A generic ranked bar chart of scored triples (KAPING similarities, retriever scores, ...)."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from kgviz.trace import StringTriple
from kgviz.viz.html import plotly_text

KEPT = "#3182bd"
LEFT_OUT = "#c6dbef"
LABEL_CHARS = 60


def triple_text(triple: StringTriple) -> str:
    """`(head, relation, tail)` as one line of plain text."""
    return "(" + ", ".join(triple) + ")"


def scored_triples_figure(triples: Sequence[StringTriple], scores: Sequence[float],
                          kept: Sequence[bool] | None = None, details: Sequence[str] = (),
                          title: str = "Scored triples", score_label: str = "score",
                          limit: int = 30) -> go.Figure:
    """The first `limit` triples (pass them best first) as bars; `kept` ones (those the method
    used) dark, the rest light; `details[i]` (plain text) joins triple i's hover."""
    shown = min(limit, len(triples))
    used = list(kept) if kept is not None else [True] * len(triples)
    labels = [f"{i + 1}. {plotly_text(triple_text(t), LABEL_CHARS)}"
              for i, t in enumerate(triples[:shown])]
    hovers = [f"<b>{plotly_text(triple_text(triples[i]))}</b><br>{score_label} {scores[i]:.4f}"
              + (f"<br>{plotly_text(details[i])}" if i < len(details) else "")
              + ("<br>used" if used[i] else "<br>not used") for i in range(shown)]
    figure = go.Figure(go.Bar(
        x=list(scores[:shown]), y=labels, orientation="h", hovertext=hovers, hoverinfo="text",
        marker_color=[KEPT if used[i] else LEFT_OUT for i in range(shown)]))
    more = f" (first {shown} of {len(triples)})" if shown < len(triples) else ""
    figure.update_layout(title=plotly_text(title) + more, xaxis_title=plotly_text(score_label),
                         yaxis={"autorange": "reversed"}, height=120 + 22 * max(shown, 1),
                         margin={"l": 10, "r": 10, "t": 50, "b": 40})
    return figure
