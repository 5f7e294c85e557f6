"""How each drawn edge runs: straight, or curved so that edges between the same two nodes (parallel
or opposite) stay apart and no edge passes over a node it does not join.

A bend is a signed roundness: 0 is straight, +r vis-network's `curvedCW` and -r its `curvedCCW`
of roundness r. `curve` follows vis-network 9.1's own geometry (a quadratic Bézier through the via
point it computes), so what is checked here is what the page draws.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from kgviz.viz.layout import Footprint, Link, Point

# Bends tried in turn, as seen from the lesser of the two ends: straight, then ever rounder
# curves on alternate sides, no two of one roundness (edges sharing their ends take distinct
# ones, none of them straight).
BENDS = (0.0, 0.25, -0.35, 0.45, -0.55, 0.65, -0.75, 0.85, -0.95)
SAMPLES = 48
CLEARANCE = 6.0  # canvas units kept between an edge and a node it does not join


def smooth_option(bend: float) -> dict[str, Any] | None:
    """vis-network's `smooth` option of an edge with this bend (None: straight)."""
    if bend == 0:
        return None
    kind = "curvedCW" if bend > 0 else "curvedCCW"
    return {"enabled": True, "type": kind, "roundness": abs(bend)}


def via_point(start: Point, end: Point, bend: float) -> Point:
    """The control point vis-network 9.1 draws a curved edge through (`BezierEdgeStatic`)."""
    roundness = abs(bend)
    dx, dy = end[0] - start[0], start[1] - end[1]
    radius = math.hypot(dx, dy)
    turn = 0.5 * roundness if bend >= 0 else -0.5 * roundness
    angle = (math.atan2(dy, dx) + (turn + 0.5) * math.pi) % (2 * math.pi)
    reach = (0.5 * roundness + 0.5) * radius
    return start[0] + reach * math.sin(angle), start[1] + reach * math.cos(angle)


def curve(start: Point, end: Point, bend: float, samples: int = SAMPLES) -> np.ndarray:
    """Points along the edge from `start` to `end` as drawn with `bend` (an array of `samples` + 1
    rows of x, y)."""
    via = np.array(via_point(start, end, bend))
    t = np.linspace(0.0, 1.0, samples + 1)[:, None]
    return (1 - t) ** 2 * np.array(start) + 2 * t * (1 - t) * via + t**2 * np.array(end)


class Obstacles:
    """The nodes' footprints (widened by `margin`), to find which ones a drawn edge passes over."""

    def __init__(
        self,
        positions: Mapping[str, Point],
        footprints: Mapping[str, Footprint],
        margin: float = CLEARANCE,
    ) -> None:
        self.ids = list(positions)
        self.x = np.array([positions[node][0] for node in self.ids])
        self.y = np.array([positions[node][1] for node in self.ids])
        self.half_width = np.array([footprints[n].half_width for n in self.ids]) + margin
        self.above = np.array([footprints[n].above for n in self.ids]) + margin
        self.below = np.array([footprints[n].below for n in self.ids]) + margin

    def crossed(self, points: np.ndarray, ends: Link) -> list[str]:
        """The nodes other than `ends` whose footprint some of `points` lies on."""
        dx = points[:, :1] - self.x
        dy = points[:, 1:] - self.y
        inside = (np.abs(dx) <= self.half_width) & (dy >= -self.above) & (dy <= self.below)
        return [self.ids[i] for i in np.flatnonzero(inside.any(axis=0)) if self.ids[i] not in ends]


def route_edges(
    links: Sequence[Link], positions: Mapping[str, Point], footprints: Mapping[str, Footprint]
) -> list[float]:
    """A bend per link: the first of `BENDS` that crosses no other node (else the one crossing
    fewest), none taken by an earlier link between the same two nodes."""
    obstacles = Obstacles(positions, footprints)
    taken: dict[frozenset[str], list[float]] = {}
    shared = Counter(frozenset(link) for link in links)
    bends = []
    for source, target in links:
        pair = frozenset((source, target))
        if source == target:  # vis-network draws its own loop
            bends.append(0.0)
            continue
        sign = 1.0 if source < target else -1.0  # bends are chosen as seen from the lesser end
        used = taken.setdefault(pair, [])
        options = [
            bend for bend in (BENDS if shared[pair] == 1 else BENDS[1:]) if bend not in used
        ] or [BENDS[-1]]  # more edges between two nodes than bends: the last ones share
        best, fewest = options[0], math.inf
        for bend in options:
            points = curve(positions[source], positions[target], sign * bend)
            count = len(obstacles.crossed(points, (source, target)))
            if count < fewest:
                best, fewest = bend, count
            if not count:
                break
        used.append(best)
        bends.append(sign * best)
    return bends
