"""The top-k subgraphs of a disconnected pattern: one match per component, joined.

A subgraph maps the whole pattern injectively (Def. 2), and its GSD is additive over the
pattern's elements, so a subgraph of a pattern with several components is one match of each
component, their node maps disjoint, scored by the sum of their GSDs. `joint_topk` enumerates
those sums best first over the components' ranked match lists (a heap over index tuples).
`certified` says whether the lists were long enough for the result to be exact: a component
whose search may hold more matches than its list shows could still contribute to a better joint
match unless its last listed GSD already rules that out.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kgviz.reasoners.simgrag.search import Match, SearchResult


@dataclass(frozen=True)
class JointMatch:
    """One match per component (`picks[i]` indexes component `i`'s list) and their summed GSD."""

    gsd: float
    picks: tuple[int, ...]


def joint_gsd(lists: Sequence[Sequence[Match]], picks: tuple[int, ...]) -> float:
    return math.fsum(lists[i][pick].gsd for i, pick in enumerate(picks))


def disjoint(lists: Sequence[Sequence[Match]], picks: tuple[int, ...]) -> bool:
    """Whether the picked matches map their nodes to distinct KG entities (injective overall)."""
    entities = [e for i, pick in enumerate(picks) for e in lists[i][pick].nodes]
    return len(set(entities)) == len(entities)


def joint_topk(lists: Sequence[Sequence[Match]], k: int) -> list[JointMatch]:
    """The `k` joint matches with the smallest summed GSD, best first (ties by picks), from each
    component's matches ranked best first."""
    if not lists or any(not matches for matches in lists):
        return []
    start = (0,) * len(lists)
    frontier = [(joint_gsd(lists, start), start)]
    queued = {start}
    found: list[JointMatch] = []
    while frontier and len(found) < k:
        gsd, picks = heapq.heappop(frontier)
        if disjoint(lists, picks):
            found.append(JointMatch(gsd, picks))
        for i in range(len(lists)):
            if picks[i] + 1 < len(lists[i]):
                after = picks[:i] + (picks[i] + 1,) + picks[i + 1 :]
                if after not in queued:
                    queued.add(after)
                    heapq.heappush(frontier, (joint_gsd(lists, after), after))
    return found


def certified(
    lists: Sequence[Sequence[Match]], complete: Sequence[bool], found: Sequence[JointMatch], k: int
) -> bool:
    """Whether `found` is the exact joint top-k: every component whose list may be cut
    (`complete[i]` false) has a last listed GSD that, with the best of the others, cannot beat
    the k-th joint match."""
    cut = [i for i, whole in enumerate(complete) if not whole]
    if not cut or any(whole and not lists[i] for i, whole in enumerate(complete)):
        return True  # every list whole, or a component with no match at all: nothing to join
    if len(found) < k or any(not matches for matches in lists):
        return False
    kth = found[-1].gsd
    best = [matches[0].gsd for matches in lists]
    return all(math.fsum([lists[i][-1].gsd, *best[:i], *best[i + 1 :]]) >= kth for i in cut)


def widened_topk(
    search: Callable[[int, int], SearchResult], parts: int, k: int
) -> tuple[list[SearchResult], list[JointMatch], int]:
    """The joint top-k of `parts` components, where `search(part, width)` gives a component's
    top-`width` matches: every list starts at k and doubles until the result is `certified`
    (exact) or a search stops early (budget or deadline: the best so far is kept; the searches'
    budgets bound the widening). Returns the last searches, the joint matches and the width."""
    width = k
    while True:
        results = [search(part, width) for part in range(parts)]
        lists = [result.matches for result in results]
        found = joint_topk(lists, k)
        complete = [r.status == "complete" and len(r.matches) < width for r in results]
        stopped = any(result.status != "complete" for result in results)
        if parts == 1 or stopped or certified(lists, complete, found, k):
            return results, found, width
        width *= 2
