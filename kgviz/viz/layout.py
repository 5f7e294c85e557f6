"""Where a graph view puts its nodes: a deterministic layered layout, computed in Python so that
what the page draws is known, and checked (`edge_routes`), before any browser opens it.

Nodes stand in columns by level, left to right: a level the view gives (a path's step), else the
fewest hops from the view's roots (topic entities, an ego-graph's centre), else the longest path
along the links' directions (a pattern). In a column, the nodes the graph opens on come first,
ordered by where their neighbours stand in the next columns (barycentres); they stack top down
by their footprints, centred on the axis, and the others follow below them; a column taller than
the view allows continues in further columns to its right. Columns are spaced by their widest
node and the longest edge label between them.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import Any

Point = tuple[float, float]
Link = tuple[str, str]

CHAR_PX = 8.0  # a character of a 14 px node label, generously
EDGE_CHAR_PX = 6.5  # a character of a 12 px edge label
FONT_PX = 14
BOX_MARGIN = 5  # vis-network's padding inside a box
DOT_SIZE = 25  # vis-network's default dot radius
ROW_GAP = 14  # between two footprints in a column
LABEL_ROOM = 70  # beside an edge label (and its arrow head), between two columns
SWEEPS = 4  # barycentre passes, each down and back up the columns
# vis-network 9.1 draws the label of an exactly horizontal edge at the canvas origin: each column
# stands this much lower than the one before, so that no edge between columns is level.
TILT = 1e-3


@dataclass(frozen=True)
class Footprint:
    """What a node covers around its centre, in canvas units: its shape and, for a dot, the label
    vis-network writes under it."""

    half_width: float
    above: float
    below: float

    def covers(self, dx: float, dy: float, margin: float = 0.0) -> bool:
        """Whether the point `(dx, dy)` off the centre lies on the footprint (widened by
        `margin`)."""
        return (
            abs(dx) <= self.half_width + margin
            and -self.above - margin <= dy <= self.below + margin
        )


def footprint(label: str, style: Mapping[str, Any]) -> Footprint:
    """The footprint of a node with this label and vis-network style (a box holds its label, a dot
    has it below)."""
    lines = label.split("\n") if label else [""]
    text = CHAR_PX * max(len(line) for line in lines)
    if style.get("shape") == "box":
        half_height = (FONT_PX * len(lines)) / 2 + BOX_MARGIN
        return Footprint(text / 2 + BOX_MARGIN, half_height, half_height)
    size = float(style.get("size", DOT_SIZE))
    return Footprint(max(size, text / 2), size, size + 4 + FONT_PX * len(lines))


def levels_from(
    ids: Sequence[str], links: Sequence[Link], roots: Collection[str]
) -> dict[str, int]:
    """Each node's fewest hops (links taken either way) from `roots`; a part of the graph no root
    reaches starts from its most linked node."""
    around = _neighbours(ids, links)
    levels: dict[str, int] = {}
    starts = [node for node in ids if node in roots]
    while len(levels) < len(ids):
        if not starts:
            rest = [node for node in ids if node not in levels]
            starts = [max(rest, key=lambda node: len(around[node]))]
        queue = deque(starts)
        for start in starts:
            levels[start] = 0
        while queue:
            node = queue.popleft()
            for other in around[node]:
                if other not in levels:
                    levels[other] = levels[node] + 1
                    queue.append(other)
        starts = []
    return levels


def levels_along(ids: Sequence[str], links: Sequence[Link]) -> dict[str, int]:
    """Each node's longest path along the links' directions, a link that closes a cycle (in
    depth-first order) left out."""
    outgoing: dict[str, list[str]] = {node: [] for node in ids}
    for source, target in links:
        if source != target:
            outgoing[source].append(target)
    state: dict[str, int] = {}  # 1 on the depth-first stack, 2 done
    order: list[str] = []
    kept: dict[str, list[str]] = {node: [] for node in ids}
    for root in ids:
        if root in state:
            continue
        stack = [(root, iter(outgoing[root]))]
        state[root] = 1
        while stack:
            node, rest = stack[-1]
            following: str | None = next(rest, None)
            if following is None:
                state[node] = 2
                order.append(node)
                stack.pop()
            elif state.get(following) != 1:  # a link back onto the stack closes a cycle
                kept[node].append(following)
                if following not in state:
                    state[following] = 1
                    stack.append((following, iter(outgoing[following])))
    levels = dict.fromkeys(ids, 0)
    for node in reversed(order):  # a topological order of the kept links
        for target in kept[node]:
            levels[target] = max(levels[target], levels[node] + 1)
    return levels


def layered_positions(
    ids: Sequence[str],
    links: Sequence[Link],
    footprints: Mapping[str, Footprint],
    levels: Mapping[str, int],
    link_labels: Sequence[str] = (),
    later: Collection[str] = (),
    max_column: float = math.inf,
) -> dict[str, Point]:
    """Each node's centre: its level's column, its place in the column (the nodes in `later`,
    shown on demand, below the others). A column taller than `max_column` continues in the next
    column to its right, as often as it must. `link_labels` (one per link) space the columns."""
    columns = _wrapped(_ordered_columns(ids, links, levels, later), footprints, max_column)
    xs = _column_xs(columns, links, levels, footprints, link_labels)
    positions: dict[str, Point] = {}
    tops: dict[int, float] = {}  # a wrapped column's parts start level with its first part
    for index, (level, column) in enumerate(columns):
        first = [node for node in column if node not in later]
        height = sum(footprints[n].above + footprints[n].below for n in first)
        top = tops.setdefault(level, -(height + ROW_GAP * max(0, len(first) - 1)) / 2)
        y = top + TILT * index
        for node in column:
            y += footprints[node].above
            positions[node] = (xs[index], y)
            y += footprints[node].below + ROW_GAP
    return positions


def _wrapped(
    columns: Mapping[int, list[str]], footprints: Mapping[str, Footprint], max_column: float
) -> list[tuple[int, list[str]]]:
    """The columns in order as (level, nodes), each cut into parts no taller than `max_column`
    (a part holds one node at least)."""
    parts: list[tuple[int, list[str]]] = []
    for level, column in columns.items():
        part: list[str] = []
        height = 0.0
        for node in column:
            tall = footprints[node].above + footprints[node].below
            if part and height + tall > max_column:
                parts.append((level, part))
                part, height = [], 0.0
            part.append(node)
            height += tall + ROW_GAP
        parts.append((level, part))
    return parts


def _neighbours(ids: Sequence[str], links: Sequence[Link]) -> dict[str, list[str]]:
    around: dict[str, list[str]] = {node: [] for node in ids}
    for source, target in links:
        if source != target:
            around[source].append(target)
            around[target].append(source)
    return around


def _ordered_columns(
    ids: Sequence[str], links: Sequence[Link], levels: Mapping[str, int], later: Collection[str]
) -> dict[int, list[str]]:
    """The nodes of each level, the ones not in `later` first, each part in barycentre order."""
    around = _neighbours(ids, links)
    columns: dict[int, list[str]] = {}
    for node in sorted(ids, key=lambda node: node in later):  # stable: input order otherwise
        columns.setdefault(levels[node], []).append(node)
    columns = dict(sorted(columns.items()))
    order = list(columns)
    for _ in range(SWEEPS):
        for sweep, step in ((order[1:], -1), (order[-2::-1], 1)):
            for level in sweep:
                near = order[order.index(level) + step]
                columns[level] = _by_barycentre(columns, level, near, around, levels, later)
    return columns


def _by_barycentre(
    columns: Mapping[int, list[str]],
    level: int,
    near: int,
    around: Mapping[str, list[str]],
    levels: Mapping[str, int],
    later: Collection[str],
) -> list[str]:
    """Column `level` reordered by the mean place of each node's neighbours in column `near`
    (its own place when it has none there), the nodes in `later` last."""
    place = {node: i for column in columns.values() for i, node in enumerate(column)}

    def key(node: str) -> tuple[bool, float]:
        seen = [place[n] for n in around[node] if levels[n] == near]
        return node in later, fmean(seen) if seen else place[node]

    return sorted(columns[level], key=key)


def _column_xs(
    columns: Sequence[tuple[int, list[str]]],
    links: Sequence[Link],
    levels: Mapping[str, int],
    footprints: Mapping[str, Footprint],
    link_labels: Sequence[str],
) -> list[float]:
    """Each column's x: past the previous column's widest node, the longest label of a link
    leaving its level (when this column starts the next level), and this column's widest node."""
    widest = [max(footprints[node].half_width for node in column) for _, column in columns]
    label: dict[int, float] = {}
    for (source, target), text in zip(links, link_labels):
        start = min(levels[source], levels[target])
        label[start] = max(label.get(start, 0.0), EDGE_CHAR_PX * len(text))
    xs: list[float] = []
    x = 0.0
    for index, (level, _) in enumerate(columns):
        if index:
            previous = columns[index - 1][0]
            room = label.get(previous, 0.0) if previous != level else 0.0
            x += widest[index - 1] + room + LABEL_ROOM + widest[index]
        xs.append(x)
    return xs
