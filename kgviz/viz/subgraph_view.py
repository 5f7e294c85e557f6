"""Retrieved graphs (pyvis): SimGRAG's top-k subgraphs coloured by the pattern element each KG node
and triple matched, and a generic evidence graph of triples for any method."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from kgviz.reasoners.simgrag.subgraphs import Subgraph
from kgviz.trace import StringTriple
from kgviz.viz.html import VisEdge, VisNode, legend, network_html
from kgviz.viz.palette import ANSWER, EVIDENCE, node_colour, relation_colour

HEADER_STYLE = {"shape": "box", "color": {"background": "#ffffff", "border": "#555555"},
                "font": {"face": "monospace"}}


def subgraphs_graph(subgraphs: Sequence[Subgraph]) -> str:
    """HTML: each subgraph apart under a `#rank · GSD` box; nodes and edges in the colour of the
    pattern node or relation they matched, with the pattern text and distance on hover."""
    if not subgraphs:
        return '<p style="font:13px sans-serif">No subgraph matched the pattern.</p>'
    nodes: list[VisNode] = []
    edges: list[VisEdge] = []
    elements: dict[str, str] = {}
    for graph in subgraphs:
        prefix = f"s{graph.rank}"
        nodes.append(VisNode(prefix, f"#{graph.rank} · GSD {graph.gsd:.3f}",
                             f"subgraph #{graph.rank}, component {graph.component}", HEADER_STYLE))
        for match in graph.nodes:
            colour = node_colour(match.pattern_node)
            elements.setdefault(f"node {match.pattern_node}: {match.text}", colour)
            nodes.append(VisNode(
                f"{prefix}:{match.name}", match.name,
                f"{match.name}\n← pattern node {match.pattern_node}: {match.text}\n"
                f"distance {match.distance:.3f}", {"color": colour, "size": 16}))
        edges.append(VisEdge(prefix, f"{prefix}:{graph.nodes[0].name}",
                             style={"dashes": True, "arrows": "", "color": "#bbbbbb"}))
        for match in graph.edges:
            colour = relation_colour(match.pattern_edge)
            elements.setdefault(f"relation {match.pattern_edge}: {match.relation}", colour)
            head, relation, tail = match.names
            edges.append(VisEdge(
                f"{prefix}:{head}", f"{prefix}:{tail}", relation,
                f"{head} —{relation}→ {tail}\n← pattern relation {match.pattern_edge}: "
                f"{match.relation}\ndistance {match.distance:.3f}",
                {"color": colour, "width": 2}))
    return legend(elements.items()) + network_html(nodes, edges)


def evidence_graph(triples: Iterable[StringTriple], highlight: Iterable[str] = (),
                   scores: Mapping[str, float] | None = None, height: int = 480) -> str:
    """HTML: the graph of `triples`, `highlight` names (e.g. answers) in red; with `scores`
    (entity name -> probability, e.g. a GNN's), node size grows with the score shown on hover."""
    marked = set(highlight)
    triples = list(dict.fromkeys(triples))
    if not triples:
        return '<p style="font:13px sans-serif">No evidence triples.</p>'
    names = dict.fromkeys(name for head, _, tail in triples for name in (head, tail))
    nodes = [_entity_node(name, name in marked, None if scores is None else scores.get(name))
             for name in names]
    edges = [VisEdge(head, tail, relation, f"{head} —{relation}→ {tail}")
             for head, relation, tail in triples]
    key = legend([("answer", ANSWER), ("evidence entity", EVIDENCE)],
                 note=f"{len(triples)} triples, {len(names)} entities")
    return key + network_html(nodes, edges, height)


def _entity_node(name: str, is_answer: bool, score: float | None) -> VisNode:
    style = {"color": ANSWER if is_answer else EVIDENCE,
             "size": 12 if score is None else 8 + 30 * max(0.0, min(1.0, score))}
    title = name if score is None else f"{name}\nscore {score:.3f}"
    return VisNode(name, name, title, style)

