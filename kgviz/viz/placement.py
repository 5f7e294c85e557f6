"""Where a graph view's nodes stand and how its edges run: each section laid out in layers apart
(`layout`), the sections side by side in rows under their header boxes, every edge routed
(`edge_routes`), and the height of the frame. A graph that opens on part of itself has two
placements: the part it opens on, laid out alone, and the whole graph for "show all", its tall
columns wrapped so that it fits the frame at legible labels, the frame grown to hold it."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from kgviz.viz.edge_routes import route_edges
from kgviz.viz.graph_data import Section, VisEdge, VisNode
from kgviz.viz.layout import (
    Footprint,
    Point,
    footprint,
    layered_positions,
    levels_along,
    levels_from,
)
from kgviz.viz.network_script import MIN_SCALE, VIEW_PAD_PX

# Sections wrap to a new row past this width (canvas units): a row fits a frame of `FRAME_PX`
# at the smallest zoom the default view allows, so no section opens cut off at the right edge.
FRAME_PX = 850
ROW_WIDTH = FRAME_PX / MIN_SCALE - 2 * VIEW_PAD_PX / MIN_SCALE
SECTION_GAP = 140
HEADER_GAP = 24  # between a header box and its section
FIT_SCALE = 0.9  # the frame is as tall as the opening part at this scale...
MIN_CANVAS_PX, MAX_CANVAS_PX = 220, 620  # ...within these bounds
MAX_FULL_CANVAS_PX = 1100  # "show all" grows the frame up to this height
PAD_PX = 30
COLUMN_STEP = 100  # the tallest column the "show all" placement tries grows by this much
FULL_MARGIN = 1.05  # room the "show all" frame keeps beyond the graph's estimated footprint


@dataclass(frozen=True)
class Placement:
    """Each node's centre, each edge's bend (`edge_routes`), the canvas height in pixels."""

    positions: dict[str, Point]
    bends: list[float]
    canvas_px: int


@dataclass(frozen=True)
class Placements:
    """Where the graph opens (`first`: every node and edge has a place, the hidden ones where
    "show all" puts them) and, when it opens on part of itself, where "show all" puts
    everything (`full`)."""

    first: Placement
    full: Placement | None


def place(
    nodes: Sequence[VisNode],
    edges: Sequence[VisEdge],
    roots: Collection[str] = (),
    sections: Sequence[Section] = (),
) -> Placements:
    """Lay out `nodes` (the sections' header boxes among them) and route `edges`: levels from the
    nodes' own, else from `roots` in each section, else along the edges."""
    footprints = {node.id: footprint(node.label, node.style) for node in nodes}
    headers = [section.header_id for section in sections]
    opening = opening_nodes(nodes, edges, roots, headers)
    shown = {s.header_id for s in sections if s.open} | {
        n.id for n in nodes if n.id in opening and (not n.section or _is_open(n.section, sections))
    }
    if all(edge.opening for edge in edges):
        positions = _positions(nodes, edges, roots, sections, footprints)
        bends = _bends(edges, positions, footprints)
        canvas = _canvas_px({n: positions[n] for n in shown}, footprints)
        return Placements(Placement(positions, bends, canvas), None)
    first_edges = [edge for edge in edges if edge.opening]
    first_nodes = [node for node in nodes if node.id in opening]
    at_first = _positions(first_nodes, first_edges, roots, sections, footprints)
    canvas = _canvas_px({n: at_first[n] for n in shown}, footprints)
    later = {node.id for node in nodes} - opening
    full = _full(nodes, edges, roots, sections, footprints, canvas, later)
    bends = _first_bends(edges, at_first, full.bends, footprints)
    return Placements(Placement(full.positions | at_first, bends, canvas), full)


def within(layout: Placements, nodes: Sequence[VisNode], edges: Sequence[VisEdge]) -> Placements:
    """A part of a placed graph (`nodes` and `edges`, all of them in `layout`) where `layout` put
    it: its edges routed anew among its own nodes, its frame as tall as the whole's; it has a
    "show all" placement when some of its edges are hidden at first."""
    footprints = {node.id: footprint(node.label, node.style) for node in nodes}
    ids = [node.id for node in nodes]
    first_at = {n: layout.first.positions[n] for n in ids}
    full_at = {n: (layout.full or layout.first).positions[n] for n in ids}
    heights = layout.first.canvas_px, (layout.full or layout.first).canvas_px
    shown = {end for edge in edges if edge.opening for end in (edge.source, edge.target)}
    full_bends = _bends(edges, full_at, footprints)
    bends = _first_bends(edges, {n: first_at[n] for n in shown}, full_bends, footprints)
    first = Placement(first_at, bends, heights[0])
    if all(edge.opening for edge in edges):
        return Placements(first, None)
    return Placements(first, Placement(full_at, full_bends, heights[1]))


def _full(
    nodes: Sequence[VisNode],
    edges: Sequence[VisEdge],
    roots: Collection[str],
    sections: Sequence[Section],
    footprints: Mapping[str, Footprint],
    first_px: int,
    later: Collection[str],
) -> Placement:
    """The "show all" placement (each section's columns wrapped to fit, `_wrapped_section`; the
    nodes in `later` below the others in their columns) and a frame as tall as its open
    sections at legible labels (from `first_px` to `MAX_FULL_CANVAS_PX`)."""
    positions = _positions(nodes, edges, roots, sections, footprints, later, wrap=True)
    shown = {n.id for n in nodes if not n.section or _is_open(n.section, sections)}
    _, top, _, bottom = _extent({n: positions[n] for n in shown}, footprints)
    wanted = math.ceil(((bottom - top) * MIN_SCALE + 2 * VIEW_PAD_PX) * FULL_MARGIN)
    canvas = min(max(wanted, first_px), MAX_FULL_CANVAS_PX)
    return Placement(positions, _bends(edges, positions, footprints), canvas)


def _positions(
    nodes: Sequence[VisNode],
    edges: Sequence[VisEdge],
    roots: Collection[str],
    sections: Sequence[Section],
    footprints: Mapping[str, Footprint],
    later: Collection[str] = (),
    wrap: bool = False,
) -> dict[str, Point]:
    """Each section laid out in layers (`later` nodes below the others in their columns; with
    `wrap`, tall columns wrapped to fit the frame), the sections arranged in rows under their
    headers."""
    headers = {section.key: section.header_id for section in sections}
    blocks = []
    for key in dict.fromkeys([*headers, *(node.section for node in nodes)]):
        members = [n for n in nodes if n.section == key and n.id != headers.get(key)]
        section = _wrapped_section if wrap else _section_positions
        blocks.append((headers.get(key), section(members, edges, roots, footprints, later)))
    return _arranged(blocks, footprints)


def _wrapped_section(
    members: Sequence[VisNode],
    edges: Sequence[VisEdge],
    roots: Collection[str],
    footprints: Mapping[str, Footprint],
    later: Collection[str],
) -> dict[str, Point]:
    """A section laid out in layers; when it does not fit `ROW_WIDTH` and the tallest frame's
    height at legible labels, its columns wrapped at the shortest height that fits (else as
    near as it comes)."""
    tallest = (MAX_FULL_CANVAS_PX - 2 * VIEW_PAD_PX) / MIN_SCALE / FULL_MARGIN

    def laid(limit: float) -> tuple[float, dict[str, Point]]:
        positions = _section_positions(members, edges, roots, footprints, later, limit)
        left, top, right, bottom = _extent(positions, footprints)
        return max((right - left) / ROW_WIDTH, (bottom - top) / tallest), positions

    best = laid(math.inf)
    limit = float(COLUMN_STEP)
    while best[0] > 1 and limit <= tallest:
        best = min(best, laid(limit), key=lambda tried: tried[0])
        limit += COLUMN_STEP
    return best[1]


def _bends(
    edges: Sequence[VisEdge], positions: Mapping[str, Point], footprints: Mapping[str, Footprint]
) -> list[float]:
    return route_edges([(e.source, e.target) for e in edges], positions, footprints)


def _first_bends(
    edges: Sequence[VisEdge],
    at_first: Mapping[str, Point],
    full_bends: Sequence[float],
    footprints: Mapping[str, Footprint],
) -> list[float]:
    """Each edge's bend where the graph opens: the opening edges routed among the nodes at
    `at_first` (those shown at first), the hidden ones as "show all" draws them."""
    opening = [edge for edge in edges if edge.opening]
    routed = iter(_bends(opening, at_first, footprints))
    return [next(routed) if edge.opening else bend for edge, bend in zip(edges, full_bends)]


def opening_nodes(
    nodes: Sequence[VisNode],
    edges: Sequence[VisEdge],
    roots: Collection[str],
    headers: Collection[str],
) -> set[str]:
    """The nodes the graph opens on: those of an opening edge, roots, headers and lone nodes."""
    linked = {end for edge in edges for end in (edge.source, edge.target)}
    return (
        {end for edge in edges if edge.opening for end in (edge.source, edge.target)}
        | {node.id for node in nodes if node.id not in linked}
        | (set(roots) & {node.id for node in nodes})
        | set(headers)
    )


def _is_open(key: str, sections: Sequence[Section]) -> bool:
    return next((section.open for section in sections if section.key == key), True)


def _section_positions(
    members: Sequence[VisNode],
    edges: Sequence[VisEdge],
    roots: Collection[str],
    footprints: Mapping[str, Footprint],
    later: Collection[str],
    max_column: float = math.inf,
) -> dict[str, Point]:
    """One section's layered layout (`layout.layered_positions`)."""
    ids = [node.id for node in members]
    inside = set(ids)
    links = [e for e in edges if e.source in inside and e.target in inside]
    pairs = [(e.source, e.target) for e in links]
    given = {node.id: node.level for node in members if node.level is not None}
    if len(given) == len(ids):
        levels: Mapping[str, int] = given
    elif inside & set(roots):
        levels = levels_from(ids, pairs, inside & set(roots))
    else:
        levels = levels_along(ids, pairs)
    labels = [e.label for e in links]
    return layered_positions(ids, pairs, footprints, levels, labels, later, max_column)


def _arranged(
    blocks: Sequence[tuple[str | None, dict[str, Point]]], footprints: Mapping[str, Footprint]
) -> dict[str, Point]:
    """The sections' layouts moved into rows, left to right, each under its header box."""
    placed: dict[str, Point] = {}
    x = y = row_height = 0.0
    for header, positions in blocks:
        left, top, right, bottom = _extent(positions, footprints)
        head = footprints[header] if header else None
        head_height = head.above + head.below + HEADER_GAP if head else 0.0
        width = max(right - left, 2 * head.half_width if head else 0.0)
        if x > 0 and x + width > ROW_WIDTH:
            x, y, row_height = 0.0, y + row_height + SECTION_GAP, 0.0
        if header and head:
            placed[header] = (x + head.half_width, y + head.above)
        for node, (px, py) in positions.items():
            placed[node] = (px - left + x, py - top + y + head_height)
        x += width + SECTION_GAP
        row_height = max(row_height, bottom - top + head_height)
    return placed


def _extent(
    positions: Mapping[str, Point], footprints: Mapping[str, Footprint]
) -> tuple[float, float, float, float]:
    """Left, top, right and bottom of the footprints at `positions` (zeros when empty)."""
    if not positions:
        return 0.0, 0.0, 0.0, 0.0
    return (
        min(x - footprints[n].half_width for n, (x, _) in positions.items()),
        min(y - footprints[n].above for n, (_, y) in positions.items()),
        max(x + footprints[n].half_width for n, (x, _) in positions.items()),
        max(y + footprints[n].below for n, (_, y) in positions.items()),
    )


def _canvas_px(positions: Mapping[str, Point], footprints: Mapping[str, Footprint]) -> int:
    """A canvas as tall as the nodes at `positions` at `FIT_SCALE`, within bounds."""
    _, top, _, bottom = _extent(positions, footprints)
    wanted = (bottom - top) * FIT_SCALE + 2 * PAD_PX
    return round(min(max(wanted, MIN_CANVAS_PX), MAX_CANVAS_PX))
