"""What a large evidence graph opens on: the triples on the shortest paths from its roots (topic
entities, an ego-graph's centre) to its ends (answers, gold answers), then the best-scored others,
up to a few; the page's "show all" control reveals the rest."""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Mapping, Sequence

from kgviz.trace import StringTriple

OPEN_TRIPLES = 15  # a graph of more triples opens on this many


def opening_triples(
    triples: Sequence[StringTriple],
    roots: Collection[str] = (),
    ends: Collection[str] = (),
    scores: Mapping[StringTriple, float] | None = None,
    limit: int = OPEN_TRIPLES,
) -> set[StringTriple]:
    """Every triple when they are at most `limit`; else the triples of the shortest paths (either
    way along triples) from `roots` to `ends`, the shortest first, then the others by score (or
    in their order), `limit` in all."""
    if len(triples) <= limit:
        return set(triples)
    chosen: dict[StringTriple, None] = {}
    for path in sorted(_shortest_paths(triples, roots, ends), key=len):
        if len(chosen) + len([t for t in path if t not in chosen]) > limit:
            continue
        chosen.update(dict.fromkeys(path))
    order = {triple: index for index, triple in enumerate(triples)}
    rest = sorted(
        (t for t in triples if t not in chosen),
        key=lambda t: (-(scores or {}).get(t, 0.0), order[t]),
    )
    chosen.update(dict.fromkeys(rest[: limit - len(chosen)]))
    return set(chosen)


def _shortest_paths(
    triples: Sequence[StringTriple], roots: Collection[str], ends: Collection[str]
) -> list[list[StringTriple]]:
    """A shortest path of triples from some root to each end the roots reach (none to a root)."""
    touching: dict[str, list[tuple[StringTriple, str]]] = {}
    for triple in triples:
        head, _, tail = triple
        touching.setdefault(head, []).append((triple, tail))
        touching.setdefault(tail, []).append((triple, head))
    reached: dict[str, tuple[StringTriple, str] | None] = {
        root: None for root in roots if root in touching
    }
    queue = deque(reached)
    while queue:
        node = queue.popleft()
        for triple, other in touching[node]:
            if other not in reached:
                reached[other] = (triple, node)
                queue.append(other)
    paths = []
    for end in dict.fromkeys(ends):
        step = reached.get(end)
        path: list[StringTriple] = []
        while step is not None:
            path.append(step[0])
            step = reached[step[1]]
        if path:
            paths.append(path[::-1])
    return paths
