"""Plotly charts of evaluation results: accuracy, cost, and where the misses failed."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from kgviz.eval.significance import wilson_interval
from kgviz.eval.tables import attribution_table, method_hop_table
from kgviz.scoring.attribution import GROUNDING_STAGE, SHARED_STAGES, attribution_stages
from kgviz.viz.escape import plotly_text

SHARED_COLOURS = {"retrieval": "#d9822b", "generation": "#3a7dbf", "error": "#9a9a9a"}
# the methods' own stages (e.g. SimGRAG's pattern) take these in the order the specs declare them
OWN_STAGE_COLOURS = ("#8e6bbf", "#2a9d8f", "#c0507a", "#7a7a2a")


def stage_colours() -> dict[str, str]:
    """A colour for each stage a miss can be attributed to, and for errors."""
    own = [s for s in attribution_stages() if s not in (*SHARED_STAGES, GROUNDING_STAGE)]
    cycle = OWN_STAGE_COLOURS * (len(own) // len(OWN_STAGE_COLOURS) + 1)
    return {GROUNDING_STAGE: "#c0392b", **dict(zip(own, cycle)), **SHARED_COLOURS}


def _hop_label(hops: int) -> str:
    return f"{hops}-hop" if hops else "all"


def _names(methods: pd.Series | pd.Index) -> list[str]:
    return [plotly_text(method) for method in methods]


def accuracy_chart(frame: pd.DataFrame) -> go.Figure:
    """Hits@1 per method, one bar per hop count, with its 95% Wilson interval as error bars and
    n in the hover."""
    table = method_hop_table(frame).reset_index()
    bounds = [wilson_interval(round(rate * n), n) for rate, n in zip(table["hits@1"], table["n"])]
    table["above"] = [high - rate for (_, high), rate in zip(bounds, table["hits@1"])]
    table["below"] = [rate - low for (low, _), rate in zip(bounds, table["hits@1"])]
    figure = go.Figure()
    for hops, part in table.groupby("hops"):
        figure.add_bar(
            name=_hop_label(int(hops)),
            x=_names(part["method"]),
            y=part["hits@1"],
            error_y={
                "type": "data",
                "symmetric": False,
                "array": part["above"],
                "arrayminus": part["below"],
                "thickness": 1,
            },
            customdata=part["n"],
            hovertemplate="%{x}: %{y:.2f} (n=%{customdata})",
        )
    figure.update_layout(
        title="Hits@1 per method and hop count",
        barmode="group",
        yaxis={"range": [0, 1], "title": "Hits@1"},
        height=380,
        legend_title_text="question",
    )
    return figure


def cost_chart(frame: pd.DataFrame) -> go.Figure:
    """Median seconds and mean prompt tokens per question, per method and hop count."""
    table = method_hop_table(frame).reset_index()
    figure = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=("median seconds per question", "mean prompt tokens per question"),
    )
    for index, (hops, part) in enumerate(table.groupby("hops")):
        colour = f"hsl({200 + 50 * index}, 55%, 50%)"
        for column, key in ((1, "median seconds"), (2, "prompt tokens")):
            figure.add_bar(
                name=_hop_label(int(hops)),
                x=_names(part["method"]),
                y=part[key],
                marker_color=colour,
                showlegend=column == 1,
                legendgroup=str(hops),
                row=1,
                col=column,
            )
    figure.update_layout(
        title="Cost per question", barmode="group", height=380, legend_title_text="question"
    )
    return figure


def attribution_chart(frame: pd.DataFrame) -> go.Figure:
    """Share of each method's questions that failed at each stage (stacked)."""
    table = attribution_table(frame)
    colours = stage_colours()
    figure = go.Figure()
    for stage in [c for c in table.columns if c in colours]:
        share = table[stage] / table["n"].clip(lower=1)
        figure.add_bar(
            name=stage,
            x=_names(table.index),
            y=share,
            marker_color=colours[stage],
            customdata=table[stage],
            hovertemplate="%{x}: %{y:.0%} (%{customdata} questions)",
        )
    figure.update_layout(
        title="Where the misses failed (share of all questions)",
        barmode="stack",
        yaxis={"range": [0, 1], "tickformat": ".0%"},
        height=380,
    )
    return figure
