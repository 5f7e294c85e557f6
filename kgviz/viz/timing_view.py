"""Where a run spent its time and tokens: seconds per stage, prompt and completion tokens."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from kgviz.trace import Trace
from kgviz.viz.escape import plotly_text

OUTER = ("retrieval", "generation")  # the stages `Reasoner.run` times around the others


def stage_order(trace: Trace) -> list[tuple[str, str]]:
    """(stage, label) in run order with nesting shown: `retrieval`'s sub-stages under it."""
    inner = [name for name in trace.timings if name not in (*OUTER, "total")]
    order = [("retrieval", "retrieval")] if "retrieval" in trace.timings else []
    order += [(name, f"└ {name}") for name in inner]
    return order + ([("generation", "generation")] if "generation" in trace.timings else [])


def cached_costs(trace: Trace) -> dict[str, float]:
    """Per timed stage, what its replies replayed from the cache cost when first computed
    (`retrieval` counts those of its sub-stages)."""
    costs: dict[str, float] = {}
    for call in trace.llm_calls:
        if call.cached:
            stage = call.stage if call.stage in trace.timings else "generation"
            costs[stage] = costs.get(stage, 0.0) + call.latency_s
    inner = sum(cost for stage, cost in costs.items() if stage not in OUTER)
    if inner and "retrieval" in trace.timings:
        costs["retrieval"] = costs.get("retrieval", 0.0) + inner
    return costs


def timing_figure(trace: Trace) -> go.Figure:
    """Left: seconds per timed stage, sub-stages under `retrieval`, with what cached replies
    first cost stacked beside; right: prompt and completion tokens per LLM stage."""
    order = stage_order(trace)
    stages = [name for name, _ in order]
    tokens: dict[str, list[int]] = {}
    for call in trace.llm_calls:
        prompt, completion = tokens.setdefault(call.stage, [0, 0])
        tokens[call.stage] = [prompt + call.prompt_tokens, completion + call.completion_tokens]
    figure = make_subplots(
        rows=1,
        cols=2,
        column_widths=[0.55, 0.45],
        horizontal_spacing=0.18,
        subplot_titles=("seconds per stage", "tokens per LLM stage"),
    )
    labels = [plotly_text(label) for _, label in order]
    seconds = [trace.timings[name] for name in stages]
    figure.add_trace(
        go.Bar(
            x=seconds,
            y=labels,
            orientation="h",
            name="seconds",
            marker_color="#6baed6",
            text=[f"{s:.2f} s" for s in seconds],
            textposition="auto",
            hoverinfo="x+y",
        ),
        row=1,
        col=1,
    )
    replayed = cached_costs(trace)
    if replayed:
        first = [replayed.get(name, 0.0) for name in stages]
        figure.add_trace(
            go.Bar(
                x=first,
                y=labels,
                orientation="h",
                name="cached reply (its first cost)",
                marker_color="#c6dbef",
                text=[f"{s:.1f} s cached" if s else "" for s in first],
                textposition="auto",
                hoverinfo="x+y+name",
            ),
            row=1,
            col=1,
        )
    token_stages = [plotly_text(name) for name in tokens]
    for part, (name, colour) in enumerate((("prompt", "#fd8d3c"), ("completion", "#74c476"))):
        figure.add_trace(
            go.Bar(
                x=[v[part] for v in tokens.values()],
                y=token_stages,
                orientation="h",
                name=f"{name} tokens",
                marker_color=colour,
                hoverinfo="x+y+name",
            ),
            row=1,
            col=2,
        )
    total = trace.timings.get("total", sum(seconds))
    cached = trace.replayed_seconds
    cached_note = f" (+{cached:.1f} s of cached replies at their first cost)" if cached else ""
    figure.update_layout(
        barmode="stack",
        height=140 + 32 * max(len(stages), len(tokens), 1),
        title=f"{plotly_text(trace.method)}: {total:.2f} s in total{cached_note}, "
        f"{trace.prompt_tokens:,} prompt + {trace.completion_tokens:,} completion tokens",
        margin={"l": 10, "r": 10, "t": 70, "b": 30},
        legend={"orientation": "h", "y": -0.15},
    )
    figure.update_yaxes(autorange="reversed")
    return figure
