"""The SimGRAG pattern graph: named elements filled in their colour, UNKNOWN ones dashed, laid out
in layers along the triples' directions, each edge clear of the nodes it does not join; the
legend names every element with its colour."""

from __future__ import annotations

from kgviz.reasoners.simgrag.query_pattern import QueryPattern
from kgviz.viz.escape import esc
from kgviz.viz.graph_data import VisEdge, VisNode
from kgviz.viz.network import legend, network_frame, with_legend
from kgviz.viz.palette import UNUSED, node_colour, relation_colour


def pattern_graph(pattern: QueryPattern | None) -> str:
    """HTML: a legend, the pattern graph (pyvis), and the question phrases and repairs below it."""
    if pattern is None:
        return '<p style="font:13px sans-serif">No pattern graph: the LLM reply held none.</p>'
    nodes = [_node(index, node.text, node.is_unknown) for index, node in enumerate(pattern.nodes)]
    edges = [
        VisEdge(
            f"n{e.head}",
            f"n{e.tail}",
            e.relation,
            f"relation {index}: {e.relation}" + (" (UNKNOWN)" if e.is_unknown else ""),
            {
                "color": _relation_colour(index, e.is_unknown),
                "dashes": e.is_unknown,
                "width": 1 if e.is_unknown else 2,
            },
        )
        for index, e in enumerate(pattern.edges)
    ]
    items = [
        (f"node {i}: {n.text}" + (" (UNKNOWN, dashed)" if n.is_unknown else ""), node_colour(i))
        for i, n in enumerate(pattern.nodes)
    ] + [
        (
            f"relation {i}: {e.relation}" + (" (UNKNOWN, grey dashed)" if e.is_unknown else ""),
            _relation_colour(i, e.is_unknown),
        )
        for i, e in enumerate(pattern.edges)
    ]
    unknown = [label for (label, _), n in zip(items, pattern.nodes) if n.is_unknown]
    return (
        legend(items, dashed=unknown) + with_legend(network_frame(nodes, edges)) + _notes(pattern)
    )


def _relation_colour(index: int, is_unknown: bool) -> str:
    return UNUSED if is_unknown else relation_colour(index)


def _node(index: int, text: str, is_unknown: bool) -> VisNode:
    colour = node_colour(index)
    title = f"node {index}: {text}" + (" (UNKNOWN)" if is_unknown else "")
    if is_unknown:
        style = {
            "shape": "box",
            "color": {"background": "#ffffff", "border": colour},
            "borderWidth": 2,
            "shapeProperties": {"borderDashes": [5, 4]},
            "font": {"color": "#555555"},
        }
    else:
        style = {
            "shape": "box",
            "color": {"background": colour, "border": colour},
            "font": {"color": "#ffffff"},
        }
    return VisNode(f"n{index}", text, title, style)


def _notes(pattern: QueryPattern) -> str:
    parts = []
    if pattern.phrases:
        parts.append("<b>Phrases:</b> " + " | ".join(esc(p) for p in pattern.phrases))
    if pattern.repairs:
        parts.append(
            "<b>Repairs:</b><ul>" + "".join(f"<li>{esc(r)}</li>" for r in pattern.repairs) + "</ul>"
        )
    return f'<div style="font:13px sans-serif">{"<br>".join(parts)}</div>' if parts else ""
