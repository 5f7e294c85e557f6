"""The recorded search tree of a top-k subgraph search, as columns (one row per record)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Outcome = Literal["expanded", "no_candidate", "pruned_bound", "completed", "in_topk"]


@dataclass
class SearchTree:
    """Records in depth-first preorder; a record's parent always precedes it.

    A root (`depth` 0, `pattern_edge` -1, `triple` -1) maps the start pattern node; a record at
    depth `d` matches the `d`-th pattern edge of the search order, mapping `pattern_node` (the
    edge's far end) to `entity` through KG row `triple`. `partial_gsd` is the GSD of the matched
    elements, `bound` that plus X+Y (the lower bound). Outcomes: "expanded" (its children were
    tried), "no_candidate" (no KG edge fits), "completed" (a full match), "in_topk" (a completed
    match in the final top-k) and "pruned_bound": `count` sibling candidates (best first, the first
    one shown) whose bound exceeded the k-th best GSD, left unexpanded; `kth_best` keeps, for a
    pruned record, the k-th best GSD it lost against (None for the others; empty in trees saved
    before it was kept). `steps` is the search order: per depth d >= 1, `(pattern edge, mapped
    node, far node)`, so a "no_candidate" record at depth d failed step d + 1. Once `max_nodes`
    records exist the rest are only counted in `dropped`, so the recorded part is a prefix of the
    tree. `entity_names` and `triple_names` name each record's entity and triple as the search
    ended (ids and rows do not outlast a run over an endpoint; empty in trees saved before they
    were kept).
    """

    max_nodes: int
    parent: list[int] = field(default_factory=list)
    depth: list[int] = field(default_factory=list)
    pattern_edge: list[int] = field(default_factory=list)
    pattern_node: list[int] = field(default_factory=list)
    entity: list[int] = field(default_factory=list)
    triple: list[int] = field(default_factory=list)
    partial_gsd: list[float] = field(default_factory=list)
    bound: list[float] = field(default_factory=list)
    outcome: list[Outcome] = field(default_factory=list)
    count: list[int] = field(default_factory=list)
    dropped: int = 0
    kth_best: list[float | None] = field(default_factory=list)
    steps: list[tuple[int, int, int]] = field(default_factory=list)
    entity_names: list[str] = field(default_factory=list)
    triple_names: list[tuple[str, str, str] | None] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.parent)

    def add(
        self,
        parent: int,
        depth: int,
        pattern_edge: int,
        pattern_node: int,
        entity: int,
        triple: int,
        partial_gsd: float,
        bound: float,
        outcome: Outcome = "expanded",
        count: int = 1,
        kth_best: float | None = None,
    ) -> int:
        """Append a record and return its id, or -1 (counted in `dropped`) past the cap."""
        if len(self.parent) >= self.max_nodes:
            self.dropped += 1
            return -1
        self.parent.append(parent)
        self.depth.append(depth)
        self.pattern_edge.append(pattern_edge)
        self.pattern_node.append(pattern_node)
        self.entity.append(entity)
        self.triple.append(triple)
        self.partial_gsd.append(partial_gsd)
        self.bound.append(bound)
        self.outcome.append(outcome)
        self.count.append(count)
        self.kth_best.append(kth_best)
        return len(self.parent) - 1

    def kth_of(self, record: int) -> float | None:
        """The k-th best GSD pruned record `record` lost against (None if not kept)."""
        return self.kth_best[record] if record < len(self.kth_best) else None

    def step(self, depth: int) -> tuple[int, int, int] | None:
        """`(pattern edge, mapped node, far node)` of the step matched at `depth` (None for a
        depth the search order does not have, or a tree saved without it)."""
        return self.steps[depth - 1] if 1 <= depth <= len(self.steps) else None

    def mark(self, node: int, outcome: Outcome) -> None:
        """Set the outcome of record `node` (ignored for -1, a record that was not kept)."""
        if node >= 0:
            self.outcome[node] = outcome

    def columns(self) -> dict[str, list]:
        """The records as named columns (e.g. for a DataFrame or a plotly icicle)."""
        names = (
            "parent",
            "depth",
            "pattern_edge",
            "pattern_node",
            "entity",
            "triple",
            "partial_gsd",
            "bound",
            "outcome",
            "count",
        )
        columns = {name: getattr(self, name) for name in names}
        kth = [self.kth_of(record) for record in range(len(self))]
        return {"id": list(range(len(self))), **columns, "kth_best": kth}
