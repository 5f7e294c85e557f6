"""The SimGRAG search tree as an icicle: a row per searched component, a column per depth headed by
the pattern triple that depth binds, and a box per recorded step, coloured by its outcome and as
tall as the leaves below it.

Drag across a tree to zoom into its rows (double-click resets): a label too small to read is
hidden until its box is tall enough, and every box gives its full text on hover. The slider below
replays the search step by step, in the order it made its records. The boxes are plotly bars,
which stay responsive with thousands of records.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import plotly.graph_objects as go

from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.simgrag.query_pattern import QueryPattern
from kgviz.reasoners.simgrag.records import ComponentSearch, SearchRecord
from kgviz.reasoners.simgrag.search_tree import SearchTree
from kgviz.viz.escape import plotly_text

OUTCOMES = {  # outcome: (legend text, colour)
    "expanded": ("expanded", "#9ecae1"),
    "no_candidate": ("no candidate", "#bdbdbd"),
    "pruned_bound": ("pruned by bound", "#fd8d3c"),
    "completed": ("completed", "#74c476"),
    "in_topk": ("in top-k", "#006d2c"),
}
LEAF_PX = 20  # a leaf box fits a line of text
MIN_TREE_PX = 120
MAX_TREE_PX = 2400  # a larger tree shares this height: zoom in to read its thinner boxes
TITLE_PX = 60
LINE_PX = 44  # a component's two lines, with a gap above
HEADER_PX = 70  # the depth headers (four lines)
FRAME_CHARS = 130  # label characters across the frame, shared by a tree's depth columns
HEADER_CHARS = 28  # characters per pattern element in a depth header
TEXT_SIZE = 12
MIN_TEXT_SIZE = 11  # a label that would be smaller is hidden
NOT_RECORDED = "The search tree was not recorded (run with record_tree=True)."
STEPS = 10  # the slider replays the search in this many steps
HIDDEN = 0.08  # the opacity of a record the replay has not reached
SLIDER_PX = 90


@dataclass(frozen=True)
class Tally:
    """Every count the view shows, over the drawn records: boxes per outcome, the candidates the
    pruned boxes stand for, and the records drawn and recorded (drawn plus dropped by the cap)."""

    boxes: dict[str, int]
    pruned: int
    drawn: int
    recorded: int


def tally(trees: Iterable[SearchTree]) -> Tally:
    """The counts of `trees` together."""
    boxes = dict.fromkeys(OUTCOMES, 0)
    pruned = drawn = recorded = 0
    for tree in trees:
        for outcome, count in zip(tree.outcome, tree.count):
            boxes[outcome] += 1
            pruned += count if outcome == "pruned_bound" else 0
        drawn += len(tree)
        recorded += len(tree) + tree.dropped
    return Tally(boxes, pruned, drawn, recorded)


def search_tree_figure(
    search: SearchRecord, pattern: QueryPattern, kg: KnowledgeGraph | None = None
) -> go.Figure:
    """The recorded search tree of each component; entity and triple names need `kg`."""
    figure = go.Figure()
    rows = [(part, _tree_px(part.tree)) for part in search.components]
    empty = not any(px for _, px in rows)
    total = sum(LINE_PX + (HEADER_PX + px if px else 0) for _, px in rows) + empty * LINE_PX
    top = drawn = 0
    for part, px in rows:
        top += LINE_PX
        figure.add_annotation(
            text=_component_line(part),
            x=0,
            y=1 - top / total,
            xref="paper",
            yref="paper",
            xanchor="left",
            yanchor="bottom",
            align="left",
            showarrow=False,
        )
        if part.tree is not None and px:
            top += HEADER_PX
            drawn += 1
            domain = [1 - (top + px) / total, 1 - top / total]
            _add_tree(figure, part, part.tree, pattern, kg, str(drawn) if drawn > 1 else "", domain)
            top += px
    if empty:
        figure.add_annotation(
            text=NOT_RECORDED,
            x=0,
            y=0,
            xref="paper",
            yref="paper",
            xanchor="left",
            yanchor="bottom",
            showarrow=False,
        )
        figure.update_layout(xaxis={"visible": False}, yaxis={"visible": False})
    steps = _step_slider([p.tree for p in search.components if p.tree is not None and len(p.tree)])
    figure.update_layout(
        title={"text": _title(search), "x": 0.01, "xanchor": "left", "font": {"size": 13}},
        margin={"l": 5, "r": 5, "t": TITLE_PX, "b": SLIDER_PX if steps else 5},
        height=TITLE_PX + total + (SLIDER_PX if steps else 5),
        uniformtext={"minsize": MIN_TEXT_SIZE, "mode": "hide"},
        plot_bgcolor="#ffffff",
        sliders=steps,
    )
    return figure


def _step_slider(trees: list[SearchTree]) -> list[dict[str, Any]]:
    """A slider that replays the search: at step s only the first s/STEPS of the records (in
    the order the search made them, component after component) are opaque."""
    total = sum(len(tree) for tree in trees)
    if total < 2:
        return []
    steps = []
    for step in range(1, STEPS + 1):
        shown = math.ceil(total * step / STEPS)
        opacities, before = [], 0
        for tree in trees:
            opacities.append([1.0 if before + i < shown else HIDDEN for i in range(len(tree))])
            before += len(tree)
        steps.append(
            {
                "label": f"{shown}",
                "method": "restyle",
                "args": [{"marker.opacity": opacities}],
            }
        )
    return [
        {
            "active": STEPS - 1,
            "steps": steps,
            "currentvalue": {"prefix": "search steps shown: "},
            "pad": {"t": 10},
            "len": 1.0,
        }
    ]


def _tree_px(tree: SearchTree | None) -> int:
    """The height of a tree's boxes: a line per leaf, within bounds (0 if nothing is drawn)."""
    if tree is None or not len(tree):
        return 0
    leaves = _rows(tree)[2]
    return min(max(LEAF_PX * leaves, MIN_TREE_PX), MAX_TREE_PX)


def _rows(tree: SearchTree) -> tuple[list[int], list[int], int]:
    """Each record's first leaf row and its number of leaves (a record's children share its rows
    in record order), and the number of leaves of the whole tree."""
    span = [0] * len(tree)
    for record in reversed(range(len(tree))):  # a record's children follow it
        span[record] = max(span[record], 1)
        if tree.parent[record] >= 0:
            span[tree.parent[record]] += span[record]
    first, free, leaves = [0] * len(tree), [0] * len(tree), 0
    for record, parent in enumerate(tree.parent):
        if parent < 0:
            first[record], leaves = leaves, leaves + span[record]
        else:
            first[record], free[parent] = free[parent], free[parent] + span[record]
        free[record] = first[record]
    return first, span, leaves


def _add_tree(
    figure: go.Figure,
    part: ComponentSearch,
    tree: SearchTree,
    pattern: QueryPattern,
    kg: KnowledgeGraph | None,
    axis: str,
    domain: list[float],
) -> None:
    """Draw `tree` as bars on axes `x{axis}`/`y{axis}` in the vertical `domain`, a column per
    depth, headed by what it binds."""
    first, span, leaves = _rows(tree)
    headers = _depth_headers(tree, part, pattern)
    chars = max(12, FRAME_CHARS // len(headers))
    figure.add_trace(
        go.Bar(
            orientation="h",
            base=tree.depth,
            x=[1] * len(tree),
            y=[row + size / 2 for row, size in zip(first, span)],
            width=span,
            text=[_label(tree, record, kg, chars) for record in range(len(tree))],
            hovertext=[_hover(tree, record, part, pattern, kg) for record in range(len(tree))],
            hoverinfo="text",
            marker={
                "color": [OUTCOMES[outcome][1] for outcome in tree.outcome],
                "line": {"width": 0.5, "color": "#ffffff"},
            },
            textposition="inside",
            insidetextanchor="start",
            textangle=0,
            textfont={"size": TEXT_SIZE},
            showlegend=False,
            xaxis=f"x{axis}",
            yaxis=f"y{axis}",
        )
    )
    figure.update_layout(
        {
            f"xaxis{axis}": {
                "anchor": f"y{axis}",
                "range": [0, len(headers)],
                "tickvals": [depth + 0.5 for depth in range(len(headers))],
                "ticktext": headers,
                "side": "top",
                "tickangle": 0,
                "fixedrange": True,
                "showgrid": False,
                "zeroline": False,
                "tickfont": {"size": 11},
            },
            f"yaxis{axis}": {
                "anchor": f"x{axis}",
                "domain": domain,
                "range": [leaves, 0],
                "visible": False,
            },
        }
    )


def _depth_headers(tree: SearchTree, part: ComponentSearch, pattern: QueryPattern) -> list[str]:
    """Per depth, the pattern element it binds, read off its first record (the records at depth
    `d` all match the `d`-th step of the search order)."""
    first: dict[int, int] = {}
    for record, depth in enumerate(tree.depth):
        first.setdefault(depth, record)
    headers = []
    for depth, record in sorted(first.items()):
        edge = tree.pattern_edge[record]
        node = part.pattern_nodes[tree.pattern_node[record]]
        headers.append(
            _depth_header(depth, part.pattern_edges[edge] if edge >= 0 else -1, node, pattern)
        )
    return headers


def _depth_header(depth: int, edge: int, node: int, pattern: QueryPattern) -> str:
    """`depth d` above `(head, relation, tail)` on three lines, the node its boxes map in bold."""

    def name(index: int) -> str:
        text = plotly_text(pattern.nodes[index].text, HEADER_CHARS)
        return f"<b>{text}</b>" if index == node else text

    if edge < 0:
        return f"depth {depth}<br>start: {name(node)}"
    triple = pattern.edges[edge]
    relation = plotly_text(triple.relation, HEADER_CHARS)
    return f"depth {depth}<br>({name(triple.head)},<br>{relation},<br>{name(triple.tail)})"


def _title(search: SearchRecord) -> str:
    """The algorithm and what is drawn, then the outcome key with its counts."""
    head = f"Search tree ({plotly_text(search.algorithm)})"
    trees = [part.tree for part in search.components if part.tree is not None]
    if not trees:
        return head
    counts = tally(trees)
    key = "  ".join(
        f'<span style="color:{OUTCOMES[outcome][1]}">■</span> {text}'
        for outcome, text in _outcome_texts(counts)
    )
    return f"{head}: {_drawn(counts)}<br>{key}"


def _component_line(part: ComponentSearch) -> str:
    """How the search of a component went, and the counts of its drawn tree."""
    text = (
        f"<b>component {part.component}</b>: {part.status.replace('_', ' ')} in "
        f"{part.elapsed_s * 1000:.0f} ms, {part.matches} match(es)"
    )
    if part.tree is None:
        return (
            f"{text}, {part.expanded:,} partial mappings visited, {part.pruned:,} pruned by "
            "bound; tree not recorded"
        )
    counts = tally([part.tree])
    outcomes = ", ".join(text for _, text in _outcome_texts(counts))
    return f"{text}; {_drawn(counts)}<br>{outcomes}"


def _drawn(counts: Tally) -> str:
    if counts.drawn == counts.recorded:
        return f"{counts.drawn:,} records drawn"
    return f"{counts.drawn:,} of {counts.recorded:,} records drawn (capped by max_tree_nodes)"


def _outcome_texts(counts: Tally) -> list[tuple[str, str]]:
    """`(outcome, "<boxes> <outcome text>")`, the pruned boxes with the candidates they cut."""
    texts = []
    for outcome, (text, _) in OUTCOMES.items():
        line = f"{counts.boxes[outcome]:,} {text}"
        if outcome == "pruned_bound":
            line += f" ({counts.pruned:,} candidates)"
        texts.append((outcome, line))
    return texts


def _entity(kg: KnowledgeGraph | None, entity: int) -> str:
    return kg.entities[entity] if kg is not None else f"entity {entity}"


def _label(tree: SearchTree, record: int, kg: KnowledgeGraph | None, chars: int) -> str:
    name = plotly_text(_entity(kg, tree.entity[record]), chars)
    if tree.outcome[record] == "pruned_bound":
        return f"✂ {name} +{tree.count[record] - 1}" if tree.count[record] > 1 else f"✂ {name}"
    return name


def _hover(
    tree: SearchTree,
    record: int,
    part: ComponentSearch,
    pattern: QueryPattern,
    kg: KnowledgeGraph | None,
) -> str:
    node = part.pattern_nodes[tree.pattern_node[record]]
    lines = [
        f"<b>{plotly_text(_entity(kg, tree.entity[record]))}</b>",
        f"{OUTCOMES[tree.outcome[record]][0]}, depth {tree.depth[record]}",
    ]
    if tree.pattern_edge[record] < 0:
        lines.append(f"start: pattern node {node} ({plotly_text(pattern.nodes[node].text)})")
    else:
        edge = part.pattern_edges[tree.pattern_edge[record]]
        lines.append(
            f"pattern edge {edge} ({plotly_text(pattern.edges[edge].relation)}) "
            f"→ node {node} ({plotly_text(pattern.nodes[node].text)})"
        )
        if kg is not None:
            lines.append("triple: " + plotly_text(", ".join(kg.triple_names(tree.triple[record]))))
    lines.append(f"partial GSD {tree.partial_gsd[record]:.3f}, bound {tree.bound[record]:.3f}")
    if tree.count[record] > 1:
        lines.append(f"pruned with {tree.count[record] - 1:,} costlier sibling(s)")
    return "<br>".join(lines)
