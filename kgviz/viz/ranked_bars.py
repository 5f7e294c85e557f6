"""Ranked bar charts: any named scores (triples, entities, ego-graphs, ...), best first, the ones a
method used dark."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from kgviz.trace import StringTriple
from kgviz.viz.escape import plotly_text

KEPT = "#3182bd"
LEFT_OUT = "#c6dbef"
LABEL_CHARS = 60
CUT_LINE = {"line_dash": "dash", "line_color": "#444444"}  # a threshold or cut across a chart


def triple_text(triple: StringTriple) -> str:
    """`(head, relation, tail)` as one line of plain text."""
    return "(" + ", ".join(triple) + ")"


def ranked_bars_figure(
    labels: Sequence[str],
    scores: Sequence[float],
    kept: Sequence[bool] | None = None,
    details: Sequence[str] = (),
    title: str = "Ranked",
    score_label: str = "score",
    limit: int = 30,
    marks: tuple[str, str] | None = ("used", "not used"),
    subtitle: str = "",
) -> go.Figure:
    """The first `limit` items (pass them best first, `labels` as plain text) as numbered bars;
    `kept` ones dark, the rest light, said in the hover by `marks` (kept, not kept; None: not
    said); `details[i]` (plain text) joins item i's hover; `subtitle` (plain text) goes under
    the title."""
    shown = min(limit, len(labels))
    used = list(kept) if kept is not None else [True] * len(labels)
    names = [
        f"{i + 1}. {plotly_text(label, LABEL_CHARS)}" for i, label in enumerate(labels[:shown])
    ]
    hovers = [
        f"<b>{plotly_text(labels[i])}</b><br>{score_label} {scores[i]:.4f}"
        + (f"<br>{plotly_text(details[i])}" if i < len(details) else "")
        + (f"<br>{marks[0] if used[i] else marks[1]}" if marks else "")
        for i in range(shown)
    ]
    figure = go.Figure(
        go.Bar(
            x=list(scores[:shown]),
            y=names,
            orientation="h",
            hovertext=hovers,
            hoverinfo="text",
            marker_color=[KEPT if used[i] else LEFT_OUT for i in range(shown)],
        )
    )
    more = f" (first {shown} of {len(labels)})" if shown < len(labels) else ""
    below = f"<br><sup>{plotly_text(subtitle)}</sup>" if subtitle else ""
    figure.update_layout(
        title=plotly_text(title) + more + below,
        xaxis_title=plotly_text(score_label),
        yaxis={"autorange": "reversed"},
        height=120 + 22 * max(shown, 1),
        margin={"l": 10, "r": 10, "t": 70 if subtitle else 50, "b": 40},
    )
    return figure
