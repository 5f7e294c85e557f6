"""Candidate pools: each named pattern element's nearest KG entities or relations by L2 distance
(cf. SimGRAG Figure 4); candidates the final subgraphs used are drawn large in the element's colour.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from kgviz.reasoners.simgrag.pools import ElementPool, PatternPools
from kgviz.reasoners.simgrag.subgraphs import Subgraph
from kgviz.viz.escape import plotly_text
from kgviz.viz.marks import GOLD, Marks
from kgviz.viz.palette import UNUSED, node_colour, relation_colour

LABEL_CHARS = 40


def pools_figure(
    pools: PatternPools, subgraphs: Sequence[Subgraph] = (), marks: Marks | None = None
) -> go.Figure:
    """One row per named element, one dot per candidate at its distance; hover: name, rank.
    Candidates the subgraphs used are coloured and named; a gold answer in `marks` is named
    with a star and a gold ring, used or not."""
    marks = marks or Marks()
    rows, x, y, names, colours, sizes, rings, hovers = [], [], [], [], [], [], [], []
    for pool in [*pools.nodes, *pools.relations]:
        if pool.is_unknown:
            continue
        row = plotly_text(f"{pool.kind} {pool.index}: {pool.text}", LABEL_CHARS)
        rows.append(row)
        colour = node_colour(pool.index) if pool.kind == "node" else relation_colour(pool.index)
        used = _used_by(pool, subgraphs)
        for candidate in pool.candidates:
            ranks = used.get(candidate.name if pool.kind == "relation" else candidate.id, [])
            gold = marks.is_gold(candidate.name)
            x.append(candidate.distance)
            y.append(row)
            shown = ranks or gold
            names.append(plotly_text(marks.star(candidate.name), LABEL_CHARS) if shown else "")
            colours.append(colour if ranks else UNUSED)
            sizes.append(13 if shown else 7)
            rings.append(GOLD if gold else "#333")
            hovers.append(
                f"<b>{plotly_text(marks.star(candidate.name))}</b><br>{row}<br>rank "
                f"{candidate.rank + 1}, distance {candidate.distance:.3f}"
                + (f"<br>used by subgraph {', '.join(f'#{r}' for r in ranks)}" if ranks else "")
            )
    figure = go.Figure(
        go.Scatter(
            x=x,
            y=y,
            mode="markers+text",
            text=names,
            textposition="top center",
            textfont={"size": 10},
            hovertext=hovers,
            hoverinfo="text",
            cliponaxis=False,
            marker={
                "color": colours,
                "size": sizes,
                "line": {"width": [2.5 if r == GOLD else 0.5 for r in rings], "color": rings},
            },
        )
    )
    unknown = sum(p.is_unknown for p in [*pools.nodes, *pools.relations])
    figure.update_layout(
        title=f"Candidate pools ({len(rows)} named elements"
        + (f"; {unknown} UNKNOWN without a pool" if unknown else "")
        + ")",
        xaxis_title="L2 distance to the pattern text",
        height=140 + 48 * max(1, len(rows)),
        yaxis={"categoryorder": "array", "categoryarray": rows, "autorange": "reversed"},
        margin={"l": 10, "r": 10, "t": 50, "b": 40},
        showlegend=False,
    )
    return figure


def _used_by(pool: ElementPool, subgraphs: Sequence[Subgraph]) -> dict[object, list[int]]:
    """KG entity id (node pools) or relation name (relation pools) -> ranks of the subgraphs
    using it."""
    used: dict[object, list[int]] = {}
    for subgraph in subgraphs:
        keys: list[object]
        if pool.kind == "node":
            keys = [m.entity for m in subgraph.nodes if m.pattern_node == pool.index]
        else:
            keys = [m.names[1] for m in subgraph.edges if m.pattern_edge == pool.index]
        for key in keys:
            used.setdefault(key, []).append(subgraph.rank)
    return used
