"""Graph views linked to the KG: each drawn entity's degree and relations on hover, and its KG
neighbourhood (a bounded number of triples) to add in place on click."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from kgviz.kg.graph import KnowledgeGraph
from kgviz.viz.graph_data import Neighbourhood, VisEdge, VisNode
from kgviz.viz.palette import KG_NEIGHBOUR

MAX_NEIGHBOURS = 25  # KG triples embedded per drawn entity
MAX_RELATIONS = 8  # relations named in a hover, the most frequent first
NEIGHBOUR_STYLE = {
    "shape": "dot",
    "size": 8,
    "color": {"background": KG_NEIGHBOUR, "border": "#bdbdbd"},
    "font": {"color": "#9e9e9e"},
}
NEIGHBOUR_EDGE_STYLE = {"color": "#d0d0d0", "font": {"color": "#aaaaaa"}, "width": 1}


def link_to_kg(
    nodes: Sequence[VisNode],
    kg: KnowledgeGraph | None,
    neighbour_id: Callable[[str], str] = str,
    cap: int = MAX_NEIGHBOURS,
) -> tuple[list[VisNode], dict[str, Neighbourhood]]:
    """`nodes`, those labelled with a KG entity's name with its degree and relations added to
    their hover text, and those nodes' neighbourhoods (at most `cap` triples each; a neighbour
    named `name` gets the id `neighbour_id(name)`). Without a `kg`: the nodes as they are."""
    if kg is None:
        return list(nodes), {}
    linked: list[VisNode] = []
    neighbourhoods: dict[str, Neighbourhood] = {}
    with kg.in_use():
        drawn = [e for node in nodes if (e := kg.entities.get(node.label)) is not None]
        _reach_shown(kg, drawn, cap)
        for node in nodes:
            entity = kg.entities.get(node.label)
            if entity is None:
                linked.append(node)
                continue
            title = f"{node.title or node.label}\n{degree_text(kg, entity)}"
            linked.append(replace(node, title=title))
            neighbourhoods[node.id] = neighbourhood(kg, entity, node, neighbour_id, cap)
    return linked, neighbourhoods


def _reach_shown(kg: KnowledgeGraph, entities: list[int], cap: int) -> None:
    """Fetch the triples of the drawn entities and of the neighbours shown with them, where the
    KG is behind an endpoint (a hover counts them; in memory there is nothing to fetch)."""
    if not kg.fetches or not entities:
        return
    kg.reach(entities, 1)
    shown = [kg.adj.neighbor[_shown_positions(kg, entity, cap)] for entity in entities]
    kg.reach(np.concatenate(shown), 1)


def _shown_positions(kg: KnowledgeGraph, entity: int, cap: int) -> np.ndarray:
    """Positions in `kg.adj` of the (at most `cap`) triples shown around `entity`."""
    span = kg.adj.span(entity)
    return span.start + take_in_turn(kg.adj.relation[span], cap)


def degree_text(kg: KnowledgeGraph, entity: int) -> str:
    """`degree 57: starred_actors 40, directed_by 3, …`: the triples touching `entity`, by
    relation, the most frequent first."""
    span = kg.adj.span(entity)
    relations, counts = np.unique(kg.adj.relation[span], return_counts=True)
    order = np.lexsort((kg.relation_rank[relations], -counts))  # ties by name
    named = ", ".join(f"{kg.relations[relations[i]]} {counts[i]}" for i in order[:MAX_RELATIONS])
    more = ", …" if len(order) > MAX_RELATIONS else ""
    return f"degree {span.stop - span.start}: {named}{more}"


def neighbourhood(
    kg: KnowledgeGraph,
    entity: int,
    node: VisNode,
    neighbour_id: Callable[[str], str],
    cap: int,
) -> Neighbourhood:
    """Up to `cap` triples touching `entity` (drawn as `node`), each relation in turn, with their
    other ends styled as KG neighbours."""
    span = kg.adj.span(entity)
    positions = _shown_positions(kg, entity, cap)
    nodes: dict[str, VisNode] = {}
    edges: list[VisEdge] = []
    for position in positions.tolist():
        other = int(kg.adj.neighbor[position])
        other_id = neighbour_id(kg.entities[other])
        if other_id not in nodes:
            nodes[other_id] = _neighbour_node(kg, other, other_id)
        head, relation, tail = kg.triple_names(int(kg.adj.edge[position]))
        source, target = (node.id, other_id) if kg.adj.forward[position] else (other_id, node.id)
        title = f"{head} —{relation}→ {tail}\nfrom the KG"
        edges.append(VisEdge(source, target, relation, title, NEIGHBOUR_EDGE_STYLE))
    return Neighbourhood(tuple(nodes.values()), tuple(edges), span.stop - span.start - len(edges))


def _neighbour_node(kg: KnowledgeGraph, entity: int, node_id: str) -> VisNode:
    name = kg.entities[entity]
    title = f"{name}\nKG neighbour (not retrieved)\n{degree_text(kg, entity)}"
    return VisNode(node_id, name, title, NEIGHBOUR_STYLE)


def take_in_turn(relations: np.ndarray, cap: int) -> np.ndarray:
    """Up to `cap` indices into `relations` (grouped by relation, as the CSR holds them): the
    first of each relation, then the second of each, and so on."""
    starts = np.flatnonzero(np.diff(relations, prepend=-1))
    sizes = np.diff(np.r_[starts, len(relations)])
    rank = np.arange(len(relations)) - np.repeat(starts, sizes)
    return np.argsort(rank, kind="stable")[:cap]
