"""Algorithm 1, lines 1-3: where SimGRAG's search starts and the order it matches edges in."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from kgviz.reasoners.simgrag.search_input import PatternGraph, SearchPools


@dataclass(frozen=True)
class Step:
    """One pattern edge in search order: from the mapped `src` to `dst` (mapped here if `new`).

    `siblings` are earlier steps' edges with the same endpoints, whose triples must differ.
    """

    edge: int
    src: int
    dst: int
    new: bool
    siblings: tuple[int, ...]


def search_order(
    pattern: PatternGraph, pools: SearchPools, num_entities: int
) -> tuple[int, tuple[Step, ...]]:
    """Algorithm 1, lines 1-3: the start node with the fewest candidates (the first of those
    tied), edges in DFS order."""
    sizes = [num_entities if pool is None else len(pool) for pool in pools.nodes]
    start = sizes.index(min(sizes))
    return start, _steps_from(pattern, start)


@functools.lru_cache(maxsize=1024)
def _steps_from(pattern: PatternGraph, start: int) -> tuple[Step, ...]:
    """The pattern's edges in DFS order from `start` (patterns recur, so this is cached)."""
    touching = pattern.incident()
    steps: list[Step] = []
    listed: set[int] = set()
    seen = {start}

    def visit(node: int) -> None:
        for edge in touching[node]:
            if edge in listed:
                continue
            listed.add(edge)
            far = pattern.other(edge, node)
            pair = {node, far}
            siblings = tuple(s.edge for s in steps if set(pattern.edges[s.edge]) == pair)
            steps.append(Step(edge, node, far, far not in seen, siblings))
            if far not in seen:
                seen.add(far)
                visit(far)

    visit(start)
    return tuple(steps)
