"""Where a run spent its time and tokens: seconds per stage, prompt and completion tokens."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from kgviz.trace import Trace
from kgviz.viz.html import plotly_text


def timing_figure(trace: Trace) -> go.Figure:
    """Left: seconds per timed stage (`retrieval` includes its sub-stages); right: prompt and
    completion tokens per LLM stage."""
    stages = [name for name in trace.timings if name != "total"]
    tokens: dict[str, list[int]] = {}
    for call in trace.llm_calls:
        prompt, completion = tokens.setdefault(call.stage, [0, 0])
        tokens[call.stage] = [prompt + call.prompt_tokens, completion + call.completion_tokens]
    figure = make_subplots(rows=1, cols=2, column_widths=[0.55, 0.45], horizontal_spacing=0.18,
                           subplot_titles=("seconds per stage", "tokens per LLM stage"))
    labels = [plotly_text(name) for name in stages]
    seconds = [trace.timings[name] for name in stages]
    figure.add_trace(go.Bar(x=seconds, y=labels, orientation="h", name="seconds",
                            marker_color="#6baed6", text=[f"{s:.2f} s" for s in seconds],
                            textposition="auto", hoverinfo="x+y"), row=1, col=1)
    token_stages = [plotly_text(name) for name in tokens]
    for part, (name, colour) in enumerate((("prompt", "#fd8d3c"), ("completion", "#74c476"))):
        figure.add_trace(go.Bar(x=[v[part] for v in tokens.values()], y=token_stages,
                                orientation="h", name=f"{name} tokens", marker_color=colour,
                                hoverinfo="x+y+name"), row=1, col=2)
    total = trace.timings.get("total", sum(seconds))
    figure.update_layout(
        barmode="stack", height=140 + 32 * max(len(stages), len(tokens), 1),
        title=f"{plotly_text(trace.method)}: {total:.2f} s in total, {trace.prompt_tokens:,} "
              f"prompt + {trace.completion_tokens:,} completion tokens",
        margin={"l": 10, "r": 10, "t": 70, "b": 30}, legend={"orientation": "h", "y": -0.15})
    figure.update_yaxes(autorange="reversed")
    return figure
