"""SimGRAG's top-k subgraphs (pyvis), one section per match laid out like the pattern, each node
and triple coloured by the pattern element it matched; given the KG, linked to it (`kg_links`):
degrees on hover, neighbours on click."""

from __future__ import annotations

from collections.abc import Sequence

from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.simgrag.pools import PatternPools
from kgviz.reasoners.simgrag.subgraphs import NodeMatch, Subgraph
from kgviz.viz.graph_data import Neighbourhood, Section, VisEdge, VisNode, prefixed
from kgviz.viz.kg_links import link_to_kg
from kgviz.viz.marks import Marks
from kgviz.viz.network import legend, network_frame, with_legend
from kgviz.viz.palette import node_colour, relation_colour

OPEN_MATCHES = 3  # the best matches are shown when the graph opens; a checkbox shows the others


def subgraphs_graph(
    subgraphs: Sequence[Subgraph],
    marks: Marks | None = None,
    kg: KnowledgeGraph | None = None,
    pools: PatternPools | None = None,
) -> str:
    """HTML: each subgraph in its own section under a `#rank · GSD` box (the best
    `OPEN_MATCHES` shown at first, a checkbox each); nodes and edges in the colour of the pattern
    node or relation they matched, with the pattern text and distance (and with `pools`, the
    candidate-pool rank) on hover; gold answers and topic entities in `marks` get their border.
    With `kg`, entities link to it (`kg_links`), neighbours staying in their subgraph."""
    if not subgraphs:
        return '<p style="font:13px sans-serif">No subgraph matched the pattern.</p>'
    nodes: list[VisNode] = []
    edges: list[VisEdge] = []
    sections: list[Section] = []
    neighbourhoods: dict[str, Neighbourhood] = {}
    elements: dict[str, str] = {}
    for number, graph in enumerate(subgraphs):
        prefix = f"s{graph.rank}"
        node_id = prefixed(prefix)
        sections.append(
            Section(
                prefix,
                f"#{graph.rank} · GSD {graph.gsd:.3f}",
                f"subgraph #{graph.rank}, {components_text(graph.components)}",
                number < OPEN_MATCHES,
            )
        )
        for match in graph.nodes:
            elements.setdefault(
                f"node {match.pattern_node}: {match.text}", node_colour(match.pattern_node)
            )
        linked, around = link_to_kg(
            [_match_node(prefix, match, pools) for match in graph.nodes],
            kg,
            node_id,
        )
        nodes.extend(linked)
        neighbourhoods.update(around)
        for edge in graph.edges:
            colour = relation_colour(edge.pattern_edge)
            elements.setdefault(f"relation {edge.pattern_edge}: {edge.relation}", colour)
            head, relation, tail = edge.names
            edges.append(
                VisEdge(
                    node_id(head),
                    node_id(tail),
                    relation,
                    f"{head} —{relation}→ {tail}\n← pattern relation {edge.pattern_edge}: "
                    f"{edge.relation}\ndistance {edge.distance:.3f}",
                    {"color": colour, "width": 2},
                )
            )
    return legend(elements.items()) + with_legend(
        network_frame(nodes, edges, marks=marks, neighbourhoods=neighbourhoods, sections=sections)
    )


def _match_node(prefix: str, match: NodeMatch, pools: PatternPools | None) -> VisNode:
    """A subgraph's entity in its pattern node's colour; hover: the pattern node, the distance
    and, with `pools`, the entity's rank in the node's candidate pool."""
    title = (
        f"{match.name}\n← pattern node {match.pattern_node}: {match.text}\n"
        f"distance {match.distance:.3f}"
    )
    if pools is not None:
        title += f"\n{pool_text(pools, match)}"
    style = {"color": node_colour(match.pattern_node), "size": 16}
    return VisNode(prefixed(prefix)(match.name), match.name, title, style, section=prefix)


def pool_text(pools: PatternPools, match: NodeMatch) -> str:
    """Where `match`'s entity ranked in its pattern node's candidate pool."""
    pool = pools.nodes[match.pattern_node]
    if pool.is_unknown:
        return "UNKNOWN node: no candidate pool, any entity"
    candidate = pool.candidate(match.entity)
    if candidate is None:
        return "not in the candidate pool"
    return (
        f"candidate-pool rank {candidate.rank + 1} of {len(pool.candidates)}, "
        f"pool distance {candidate.distance:.3f}"
    )


def components_text(components: tuple[int, ...]) -> str:
    """`component 0`, or `components 0 + 1` for a subgraph joined from several."""
    if len(components) == 1:
        return f"component {components[0]}"
    return "components " + " + ".join(map(str, components))
