"""Retrieved graphs (pyvis): SimGRAG's top-k subgraphs coloured by the pattern element each KG node
and triple matched, a generic evidence graph of triples for any method, and the graph of triples
with scored and pruned edges that the method views build on. Given the KG, each links to it
(`kg_links`): degrees on hover, neighbours on click."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.simgrag.pools import PatternPools
from kgviz.reasoners.simgrag.subgraphs import NodeMatch, Subgraph
from kgviz.trace import StringTriple
from kgviz.viz.kg_links import link_to_kg
from kgviz.viz.marks import Marks
from kgviz.viz.network import GRAPH_HEIGHT, Neighbourhood, VisEdge, VisNode, legend, network_html
from kgviz.viz.palette import (
    ANSWER,
    EVIDENCE,
    TOPIC,
    UNUSED,
    node_colour,
    relation_colour,
    score_colour,
    score_key,
)

HEADER_STYLE = {
    "shape": "box",
    "color": {"background": "#ffffff", "border": "#555555"},
    "font": {"face": "monospace"},
}
ROOT_STYLE = {"shape": "box", "color": TOPIC, "font": {"color": "#ffffff"}}  # topics, centres


def subgraphs_graph(
    subgraphs: Sequence[Subgraph],
    marks: Marks | None = None,
    kg: KnowledgeGraph | None = None,
    pools: PatternPools | None = None,
) -> str:
    """HTML: each subgraph apart under a `#rank · GSD` box; nodes and edges in the colour of the
    pattern node or relation they matched, with the pattern text and distance (and with `pools`,
    the candidate-pool rank) on hover; gold answers and topic entities in `marks` get their
    border. With `kg`, entities link to it (`kg_links`), neighbours staying in their subgraph."""
    if not subgraphs:
        return '<p style="font:13px sans-serif">No subgraph matched the pattern.</p>'
    nodes: list[VisNode] = []
    edges: list[VisEdge] = []
    neighbourhoods: dict[str, Neighbourhood] = {}
    elements: dict[str, str] = {}
    for graph in subgraphs:
        prefix = f"s{graph.rank}"
        for match in graph.nodes:
            elements.setdefault(
                f"node {match.pattern_node}: {match.text}", node_colour(match.pattern_node)
            )
        linked, around = _subgraph_nodes(graph, prefix, kg, pools)
        nodes.extend(linked)
        neighbourhoods.update(around)
        edges.append(
            VisEdge(
                prefix,
                f"{prefix}:{graph.nodes[0].name}",
                style={"dashes": True, "arrows": "", "color": "#bbbbbb"},
            )
        )
        for edge in graph.edges:
            colour = relation_colour(edge.pattern_edge)
            elements.setdefault(f"relation {edge.pattern_edge}: {edge.relation}", colour)
            head, relation, tail = edge.names
            edges.append(
                VisEdge(
                    f"{prefix}:{head}",
                    f"{prefix}:{tail}",
                    relation,
                    f"{head} —{relation}→ {tail}\n← pattern relation {edge.pattern_edge}: "
                    f"{edge.relation}\ndistance {edge.distance:.3f}",
                    {"color": colour, "width": 2},
                )
            )
    return legend(elements.items()) + network_html(
        nodes, edges, marks=marks, neighbourhoods=neighbourhoods
    )


def _subgraph_nodes(
    graph: Subgraph, prefix: str, kg: KnowledgeGraph | None, pools: PatternPools | None
) -> tuple[list[VisNode], dict[str, Neighbourhood]]:
    """A subgraph's `#rank · GSD` box and entities (ids under `prefix`), linked to `kg` with
    their neighbours under `prefix` too, so each subgraph expands apart."""
    header = VisNode(
        prefix,
        f"#{graph.rank} · GSD {graph.gsd:.3f}",
        f"subgraph #{graph.rank}, {components_text(graph.components)}",
        HEADER_STYLE,
    )
    entities, neighbourhoods = link_to_kg(
        [_match_node(prefix, match, pools) for match in graph.nodes],
        kg,
        lambda name: f"{prefix}:{name}",
    )
    return [header, *entities], neighbourhoods


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
    return VisNode(f"{prefix}:{match.name}", match.name, title, style)


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


def evidence_graph(
    triples: Iterable[StringTriple],
    highlight: Iterable[str] = (),
    scores: Mapping[str, float] | None = None,
    height: int = GRAPH_HEIGHT,
    triple_scores: Mapping[StringTriple, float] | None = None,
    marks: Marks | None = None,
    kg: KnowledgeGraph | None = None,
) -> str:
    """HTML: the graph of `triples`, `highlight` names (e.g. answers) in red; with `scores`
    (entity name -> probability, e.g. a GNN's), node size grows with the score shown on hover;
    with `triple_scores` (e.g. a retriever's), edges take their score's colour and width (and a
    score filter); gold answers and topic entities in `marks` get their border; with `kg`,
    entities link to it (`kg_links`)."""
    marked = set(highlight)
    key = [("answer", ANSWER), ("evidence entity", EVIDENCE)]
    return triples_graph(
        triples,
        lambda name: _entity_node(
            name, name in marked, None if scores is None else scores.get(name)
        ),
        key + (score_key("triple score") if triple_scores else []),
        scores=triple_scores,
        height=height,
        marks=marks,
        kg=kg,
    )


def triples_graph(
    triples: Iterable[StringTriple],
    node: Callable[[str], VisNode],
    key: Iterable[tuple[str, str]],
    note: str = "",
    scores: Mapping[StringTriple, float] | None = None,
    pruned: Collection[StringTriple] = (),
    height: int = GRAPH_HEIGHT,
    marks: Marks | None = None,
    layered: bool = False,
    kg: KnowledgeGraph | None = None,
) -> str:
    """HTML: the legend `key` with the triple and entity counts and `note`, above the graph of
    `triples` (duplicates dropped) whose entities `node(name)` draws. An edge with a score in
    `scores` takes its colour and width (hover: the score; a slider filters by it); a `pruned`
    one is light and dashed. `layered` lays the graph out left to right (nodes may give their
    `level`). With `kg`, entities link to it (`kg_links`)."""
    triples = list(dict.fromkeys(triples))
    if not triples:
        return '<p style="font:13px sans-serif">No evidence triples.</p>'
    names = dict.fromkeys(name for head, _, tail in triples for name in (head, tail))
    edges = [
        _triple_edge(triple, None if scores is None else scores.get(triple), triple in pruned)
        for triple in triples
    ]
    counts = f"{len(triples)} triples, {len(names)} entities"
    nodes, neighbourhoods = link_to_kg([node(name) for name in names], kg)
    return legend(key, note=f"{counts}; {note}" if note else counts) + network_html(
        nodes, edges, height, layered=layered, marks=marks, neighbourhoods=neighbourhoods
    )


def _triple_edge(triple: StringTriple, score: float | None, pruned: bool) -> VisEdge:
    head, relation, tail = triple
    title = f"{head} —{relation}→ {tail}" + ("" if score is None else f"\nscore {score:.3f}")
    if pruned:
        return VisEdge(
            head,
            tail,
            relation,
            title + "\npruned",
            {"color": UNUSED, "dashes": True, "width": 1, "font": {"color": UNUSED}},
            score,
        )
    style = {} if score is None else {"color": score_colour(score), "width": 1 + 4 * score}
    return VisEdge(head, tail, relation, title, style, score)


def node_size(score: float | None) -> float:
    """A node's size: growing with its score in [0, 1], a middle size without one."""
    return 12 if score is None else 8 + 30 * max(0.0, min(1.0, score))


def _entity_node(name: str, is_answer: bool, score: float | None) -> VisNode:
    style = {"color": ANSWER if is_answer else EVIDENCE, "size": node_size(score)}
    title = name if score is None else f"{name}\nscore {score:.3f}"
    return VisNode(name, name, title, style)


def components_text(components: tuple[int, ...]) -> str:
    """`component 0`, or `components 0 + 1` for a subgraph joined from several."""
    if len(components) == 1:
        return f"component {components[0]}"
    return "components " + " + ".join(map(str, components))
