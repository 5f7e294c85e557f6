"""Candidate pools: each named pattern element's nearest KG entities or relations by L2 distance
(cf. SimGRAG Figure 4). Each pool names its nearest candidates (and any a subgraph used or that is
a gold answer), each name on a lane of its own above the row, so no two names overlap; candidates
the final subgraphs used are drawn large in the element's colour."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from kgviz.embed.kg_index import Neighbour
from kgviz.reasoners.simgrag.pools import ElementPool, PatternPools
from kgviz.reasoners.simgrag.subgraphs import Subgraph
from kgviz.viz.escape import plotly_text
from kgviz.viz.marks import GOLD, Marks
from kgviz.viz.palette import UNUSED, node_colour, relation_colour
from kgviz.viz.wording import counted

LABEL_CHARS = 40
NAMED = 5  # candidates named per pool, nearest first (those used or gold too)
LANE_PX = 17  # a name's line above its row
FIRST_LANE_PX = 16  # from a dot up to the first name
DOT_ROOM_PX = 34  # below a row's dots
TITLE_PX = 90


def pools_figure(
    pools: PatternPools, subgraphs: Sequence[Subgraph] = (), marks: Marks | None = None
) -> go.Figure:
    """One row per named element, one dot per candidate at its distance; the nearest `NAMED`
    candidates, those the subgraphs used and gold answers in `marks` (ringed in gold) are named
    on lanes above the row; the row says whether its pool holds a gold answer. Hover: name,
    rank, distance, the subgraphs using it."""
    marks = marks or Marks()
    named_pools = [p for p in [*pools.nodes, *pools.relations] if not p.is_unknown]
    used = [_used_by(pool, subgraphs) for pool in named_pools]
    names = [_named(pool, uses, marks) for pool, uses in zip(named_pools, used)]
    lanes = max((len(chosen) for chosen in names), default=1)
    row_px = FIRST_LANE_PX + LANE_PX * lanes + DOT_ROOM_PX
    distances = [c.distance for pool in named_pools for c in pool.candidates] or [0.0, 1.0]
    low, high = min(0.0, min(distances)), max(distances)
    pad = 0.04 * (high - low or 1.0)
    figure = go.Figure(
        [
            _row_dots(row, pool, uses, marks)
            for row, (pool, uses) in enumerate(zip(named_pools, used))
        ]
    )
    middle = (low + high) / 2
    for row, (pool, chosen) in enumerate(zip(named_pools, names)):
        for lane, candidate in enumerate(chosen):
            figure.add_annotation(
                x=candidate.distance,
                y=row,
                ax=0,
                ay=-(FIRST_LANE_PX + LANE_PX * lane + LANE_PX / 2),
                text=plotly_text(_name(pool, candidate, marks), LABEL_CHARS),
                xanchor="left" if candidate.distance <= middle else "right",
                showarrow=True,
                arrowhead=0,
                arrowwidth=0.7,
                arrowcolor="#9e9e9e",
                standoff=5,
                font={"size": 11},
            )
    unknown = sum(p.is_unknown for p in [*pools.nodes, *pools.relations])
    rows = len(named_pools)
    figure.update_layout(
        title={"text": _title(rows, unknown, subgraphs, marks), "font": {"size": 14}},
        xaxis={"title": "L2 distance to the pattern text", "range": [low - pad, high + pad]},
        yaxis={
            "tickvals": list(range(rows)),
            "ticktext": [_row_text(pool, marks) for pool in named_pools],
            "range": [rows - 1 + DOT_ROOM_PX / row_px, -1 + DOT_ROOM_PX / row_px],
            "zeroline": False,
            "automargin": True,
        },
        height=TITLE_PX + 50 + row_px * max(1, rows),
        margin={"l": 10, "r": 10, "t": TITLE_PX, "b": 50},
        showlegend=False,
    )
    return figure


def _named(pool: ElementPool, used: dict[object, list[int]], marks: Marks) -> list[Neighbour]:
    """The candidates a pool names: its nearest `NAMED`, and any used or gold, nearest first."""
    return [
        candidate
        for candidate in pool.candidates
        if candidate.rank < NAMED
        or _key(pool, candidate) in used
        or _name(pool, candidate, marks) != candidate.name
    ]


def _row_dots(
    row: int, pool: ElementPool, used: dict[object, list[int]], marks: Marks
) -> go.Scatter:
    """A pool's candidates as dots on its row: used ones large in the element's colour, gold
    answers ringed in gold."""
    colour = node_colour(pool.index) if pool.kind == "node" else relation_colour(pool.index)
    element = plotly_text(f"{pool.kind} {pool.index}: {pool.text}", LABEL_CHARS)
    x, colours, sizes, rings, hovers = [], [], [], [], []
    for candidate in pool.candidates:
        ranks = used.get(_key(pool, candidate), [])
        gold = _name(pool, candidate, marks) != candidate.name
        x.append(candidate.distance)
        colours.append(colour if ranks else UNUSED)
        sizes.append(13 if ranks or candidate.rank < NAMED or gold else 7)
        rings.append(gold)
        hovers.append(
            f"<b>{plotly_text(_name(pool, candidate, marks))}</b>"
            f"<br>{element}<br>rank {candidate.rank + 1}, distance {candidate.distance:.3f}"
            + (f"<br>used by subgraph {', '.join(f'#{r}' for r in ranks)}" if ranks else "")
            + ("<br>gold answer: a candidate of this pool (a name near its text)" if gold else "")
        )
    return go.Scatter(
        x=x,
        y=[row] * len(x),
        mode="markers",
        hovertext=hovers,
        hoverinfo="text",
        marker={
            "color": colours,
            "size": sizes,
            "line": {
                "width": [2.5 if ring else 0.5 for ring in rings],
                "color": [GOLD if ring else "#333" for ring in rings],
            },
        },
    )


def _row_text(pool: ElementPool, marks: Marks) -> str:
    """The row's element and, with gold answers known, whether this node's pool holds one."""
    text = plotly_text(f"{pool.kind} {pool.index}: {pool.text}", LABEL_CHARS)
    if pool.kind != "node" or not marks.gold:
        return text
    ranks = [c.rank + 1 for c in pool.candidates if marks.is_gold(c.name)]
    note = (
        f"a gold answer is a candidate here (rank {', '.join(map(str, ranks))})"
        if ranks
        else "gold answer not in this pool"
    )
    return f'{text}<br><span style="font-size:10px;color:#666">{note}</span>'


def _title(rows: int, unknown: int, subgraphs: Sequence[Subgraph], marks: Marks) -> str:
    """What is drawn, then the key of every colour."""
    head = f"Candidate pools ({counted(rows, 'named element')}" + (
        f"; {unknown} UNKNOWN without a pool)" if unknown else ")"
    )
    key = [
        "● used by a subgraph (in its element's colour)",
        f'<span style="color:{UNUSED}">●</span> not used',
    ]
    if marks.gold:
        key.append(f'<span style="color:{GOLD}">◯</span> gold answer (gold ring, ★)')
    if not subgraphs:
        key.append("no subgraph matched: no candidate was used")
    return f"{head}<br><sup>{'  '.join(key)}; each pool names its {NAMED} nearest</sup>"


def _name(pool: ElementPool, candidate: Neighbour, marks: Marks) -> str:
    """A candidate's name, starred when it is a gold answer in a node's pool."""
    return marks.star(candidate.name) if pool.kind == "node" else candidate.name


def _key(pool: ElementPool, candidate: Neighbour) -> object:
    """How the subgraphs name a candidate: KG entity id (node pools) or relation name."""
    return candidate.name if pool.kind == "relation" else candidate.id


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
