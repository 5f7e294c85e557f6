"""Matched subgraphs in readable form: per match its KG triples, its GSD, and which pattern element
maps to which KG element at what distance; and the evidence (their triples, best first)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.simgrag.pools import PatternPools
from kgviz.reasoners.simgrag.query_pattern import Component, QueryPattern
from kgviz.reasoners.simgrag.search import Match
from kgviz.trace import StringTriple


@dataclass
class NodeMatch:
    """Pattern node `pattern_node` (its `text`) mapped to KG entity `entity` (`name`)."""

    pattern_node: int
    text: str
    entity: int
    name: str
    distance: float


@dataclass
class EdgeMatch:
    """Pattern edge `pattern_edge` (its `relation`) mapped to KG triple row `triple`."""

    pattern_edge: int
    relation: str
    triple: int
    names: StringTriple
    distance: float


@dataclass
class Subgraph:
    """One retrieved subgraph: its rank, the searched components it matches (one match each, for
    a disconnected pattern), its GSD (summed over them) and its mappings."""

    rank: int
    components: tuple[int, ...]
    gsd: float
    triples: list[StringTriple]
    nodes: list[NodeMatch]
    edges: list[EdgeMatch]


def describe(
    kg: KnowledgeGraph,
    pattern: QueryPattern,
    pools: PatternPools,
    component: int,
    part: Component,
    match: Match,
) -> Subgraph:
    """A search match (local node order of `part`) as a readable Subgraph (rank set later)."""
    nodes = [
        NodeMatch(
            n,
            pattern.nodes[n].text,
            entity,
            kg.entities[entity],
            pools.nodes[n].distance_of(entity),
        )
        for n, entity in zip(part.nodes, match.nodes)
    ]
    edges = []
    for e, row in zip(part.edges, match.edges):
        relation = int(kg.triples[row][1])
        edges.append(
            EdgeMatch(
                e,
                pattern.edges[e].relation,
                row,
                kg.triple_names(row),
                pools.relations[e].distance_of(relation),
            )
        )
    return Subgraph(-1, (component,), match.gsd, [edge.names for edge in edges], nodes, edges)


def joined(parts: Sequence[Subgraph], gsd: float) -> Subgraph:
    """One subgraph of a disconnected pattern from a match of each component (rank set later)."""
    return Subgraph(
        -1,
        tuple(c for part in parts for c in part.components),
        gsd,
        [t for part in parts for t in part.triples],
        [n for part in parts for n in part.nodes],
        [e for part in parts for e in part.edges],
    )


def ranked(subgraphs: Sequence[Subgraph]) -> list[Subgraph]:
    """All subgraphs by ascending GSD (stable across components), ranks set from 1."""
    ordered = sorted(subgraphs, key=lambda s: s.gsd)
    for rank, subgraph in enumerate(ordered, 1):
        subgraph.rank = rank
    return ordered


def evidence(subgraphs: Sequence[Subgraph]) -> list[StringTriple]:
    """The union of the subgraphs' triples, in subgraph order, each triple once."""
    return list(dict.fromkeys(t for s in subgraphs for t in s.triples))


def edited(found: Sequence[Subgraph], evidence: Sequence[StringTriple]) -> list[Subgraph]:
    """`found` cut to the triples `evidence` keeps; a triple `evidence` adds in place of a removed
    one (same head and relation, or same relation and tail) takes its place in its subgraph and
    mapping, the other added triples form one more subgraph, ranked last (with no mapping);
    subgraphs left empty are dropped."""
    kept = set(evidence)
    known = {t for graph in found for t in graph.triples}
    added = [t for t in evidence if t not in known]
    cut: list[Subgraph] = []
    for graph in found:
        swaps: dict[StringTriple, StringTriple] = {}
        for triple in graph.triples:
            substitute = next((t for t in added if _replaces(t, triple)), None)
            if triple not in kept and substitute is not None:
                added.remove(substitute)
                swaps[triple] = substitute
        triples = [swaps.get(t, t) for t in graph.triples if t in kept or t in swaps]
        if triples:
            cut.append(_remapped(graph, triples, kept, swaps))
    if added:
        cut.append(Subgraph(len(cut) + 1, (), 0.0, added, [], []))
    return cut


def _remapped(
    graph: Subgraph,
    triples: list[StringTriple],
    kept: set[StringTriple],
    swaps: dict[StringTriple, StringTriple],
) -> Subgraph:
    """`graph` with `triples`: its edge matches cut to them, a swapped triple's match naming the
    new triple (no KG row), a node match for each entity a swap brings in, none for an entity
    no triple names any more."""
    edges = [
        dataclasses.replace(e, triple=-1, names=swaps[e.names]) if e.names in swaps else e
        for e in graph.edges
        if e.names in kept or e.names in swaps
    ]
    nodes = list(graph.nodes)
    for old, new in swaps.items():
        end = 0 if old[0] != new[0] else 2  # the end that changed
        match = next((m for m in graph.nodes if m.name == old[end]), None)
        if match is not None:
            nodes.append(dataclasses.replace(match, entity=-1, name=new[end], distance=math.nan))
    named = {name for head, _, tail in triples for name in (head, tail)}
    nodes = [m for m in nodes if m.name in named]
    return dataclasses.replace(graph, triples=triples, nodes=nodes, edges=edges)


def _replaces(new: StringTriple, old: StringTriple) -> bool:
    """Whether `new` says something else in the place of `old`: the same head and relation, or
    the same relation and tail."""
    return new[1] == old[1] and (new[0] == old[0] or new[2] == old[2])
