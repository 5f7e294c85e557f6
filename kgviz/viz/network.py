"""Offline graphs: pyvis networks with inline vis-network in a sandboxed iframe, laid out in Python
(`placement`: fixed positions, no physics, so nothing moves once drawn), with the controls of
`network_script`, optional KG neighbourhoods shown on click and a score filter. Every data text
goes through `escape` (see its docstring for how each kind stays text)."""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from pyvis.network import Network

from kgviz.viz.edge_routes import smooth_option
from kgviz.viz.escape import esc, vis_text
from kgviz.viz.graph_data import Neighbourhood, Section, VisEdge, VisNode
from kgviz.viz.marks import Marks
from kgviz.viz.network_script import BAR_PX, FONT_PX, control_bar, scripts
from kgviz.viz.palette import KG_NEIGHBOUR
from kgviz.viz.placement import Placements, place, within

OPTIONS = {
    "physics": {"enabled": False},
    "nodes": {"font": {"size": FONT_PX}},
    "edges": {"font": {"size": 12, "align": "middle"}, "smooth": False},
    "interaction": {"hover": True},
}


def iframe(document: str, height: int) -> str:
    """A whole HTML document shown in a sandboxed `<iframe srcdoc>` (writes no files) that may go
    full screen."""
    return (
        f'<iframe srcdoc="{esc(document)}" sandbox="allow-scripts" allow="fullscreen" '
        f'allowfullscreen style="width:100%;height:{height + 4}px;border:none"></iframe>'
    )


def legend(items: Iterable[tuple[str, str]], note: str = "", dashed: Iterable[str] = ()) -> str:
    """A row of colour swatches with their (data) labels, and an optional (data) note; labels
    in `dashed` get a white swatch with a dashed border in their colour."""
    outlined = set(dashed)

    def swatch(label: str, colour: str) -> str:
        paint = (
            f"background:#fff;border:2px dashed {esc(colour)};box-sizing:border-box"
            if label in outlined
            else f"background:{esc(colour)}"
        )
        return (
            f'<span style="margin-right:14px"><span style="display:inline-block;width:11px;'
            f'height:11px;border-radius:2px;{paint};margin-right:4px"></span>'
            f"{esc(label)}</span>"
        )

    swatches = "".join(swatch(label, colour) for label, colour in items)
    tail = f'<span style="color:#666">{esc(note)}</span>' if note else ""
    return f'<div style="font:13px sans-serif;margin:4px 0">{swatches}{tail}</div>'


# pyvis's template links bootstrap from a CDN and a vis stylesheet by a relative path (kgviz's
# graphs need neither: vis-network is inlined, and an offline page must load nothing), and writes
# an empty heading that would push the canvas down.
FETCHED = re.compile(
    r'<script[^>]*\bsrc="[^"]*"[^>]*>\s*</script>|<link[^>]*\bhref="[^"]*"[^>]*>'
    r"|<center>\s*<h1>\s*</h1>\s*</center>",
    re.IGNORECASE,
)


def framed(document: str, bar: str, extras: str) -> str:
    """A pyvis document without anything fetched from elsewhere, with the control `bar` above
    the canvas and `extras` (scripts) after it."""
    document = FETCHED.sub("", document).replace("<body>", "<body>" + bar, 1)
    return document.replace("</body>", extras + "</body>", 1)


def with_legend(drawn: tuple[list[tuple[str, str]], str]) -> str:
    """A graph's frame (`network_frame`) under its legend."""
    key, frame = drawn
    return (legend(key) if key else "") + frame


def network_frame(
    nodes: Sequence[VisNode],
    edges: Sequence[VisEdge],
    marks: Marks | None = None,
    neighbourhoods: Mapping[str, Neighbourhood] | None = None,
    roots: Collection[str] = (),
    sections: Sequence[Section] = (),
    layout: Placements | None = None,
    sync: str = "",
) -> tuple[list[tuple[str, str]], str]:
    """The legend items and the iframe of a graph: the pyvis document with inline vis-network
    (offline), laid out in layers (`placement`: columns from the nodes' levels, else from
    `roots`, else along the edges) with each of `sections` apart under its header box. With
    `marks`, nodes whose label is a gold answer or a topic entity get its border, hover text and
    a legend item. Clicking a node in `neighbourhoods` (node id -> what it adds) shows its
    neighbourhood, clicking again hides it; edges with a score get a score filter; edges not
    `opening` wait for "show all". With `layout` (a placement of a graph these nodes and edges
    are part of), every node stands where it stands there; frames given the same `sync` key
    follow each other's zoom and pan."""
    marks = marks or Marks()
    neighbourhoods = neighbourhoods or {}
    drawn = [*(section.header() for section in sections), *nodes]
    if layout is None:
        placements = place(drawn, edges, roots, sections)
    else:
        placements = within(layout, drawn, edges)
    first, full = placements.first, placements.full
    net = Network(
        height=f"{first.canvas_px}px",
        width="100%",
        directed=True,
        notebook=True,
        cdn_resources="in_line",
    )
    section_of = {node.id: node.section for node in drawn}
    for node in drawn:
        hood = neighbourhoods.get(node.id)
        x, y = first.positions[node.id]
        options = _node_options(_with_hint(node, hood) if hood else node, marks)
        if full is not None:  # where "show all" moves it, and back
            options |= dict(zip(("fullX", "fullY"), full.positions[node.id]), firstX=x, firstY=y)
        net.add_node(node.id, **options, x=x, y=y, **_section(node.section))
    for index, edge in enumerate(edges):
        options = _edge_options(edge, smooth_option(first.bends[index]))
        if full is not None:
            options["firstSmooth"] = _bend_option(first.bends[index])
            options["fullSmooth"] = _bend_option(full.bends[index])
        net.add_edge(edge.source, edge.target, **options, **_section(section_of[edge.source]))
    net.set_options(json.dumps(OPTIONS))
    key = marks.legend_items(node.label for node in nodes)
    if neighbourhoods:
        key.append(("KG neighbours: click an entity to show them, again to hide", KG_NEIGHBOUR))
    hidden = not all(edge.opening for edge in edges)
    scores = [edge.score for edge in edges if edge.score is not None]
    hoods = _expanding(neighbourhoods, drawn, edges, marks) if neighbourhoods else None
    heights = (first.canvas_px, (full or first).canvas_px)
    document = framed(
        net.generate_html(notebook=True),
        control_bar(sections, hidden, scores),
        scripts(hoods, heights, sync),
    )
    return key, iframe(document, heights[1] + BAR_PX)


def _bend_option(bend: float) -> dict[str, Any]:
    """vis-network's `smooth` for an edge whose bend changes: a straight one says so."""
    return smooth_option(bend) or {"enabled": False}


def _section(key: str) -> dict[str, str]:
    return {"section": key} if key else {}


def _with_hint(node: VisNode, hood: Neighbourhood) -> VisNode:
    """`node` whose hover text says what clicking it shows."""
    more = f" (+{hood.more} more)" if hood.more else ""
    hint = f"click: show {len(hood.edges)} KG triple(s){more}"
    return replace(node, title=f"{node.title or node.label}\n{hint}")


def _node_options(node: VisNode, marks: Marks) -> dict[str, Any]:
    """A node's vis-network options but its id: (data) label and title, style, `marks`' role."""
    role = marks.role(node.label)
    title = node.title or node.label
    return {
        "label": vis_text(node.label),
        "title": vis_text(f"{title}\n{role}" if role else title),
        **marks.vis_style(node.label, node.style),
    }


def _edge_options(edge: VisEdge, smooth: dict[str, Any] | None = None) -> dict[str, Any]:
    """An edge's vis-network options but its ends: (data) label and title, its curve, its score
    (for the filter), whether it shows at first, style."""
    options: dict[str, Any] = {}
    if edge.label:
        options["label"] = vis_text(edge.label)
    if edge.title or edge.label:
        options["title"] = vis_text(edge.title or edge.label)
    if smooth is not None:
        options["smooth"] = smooth
    if edge.score is not None:
        options["score"] = edge.score
    if not edge.opening:
        options["opening"] = False
    return {**options, **edge.style}


def _expanding(
    neighbourhoods: Mapping[str, Neighbourhood],
    nodes: Sequence[VisNode],
    edges: Sequence[VisEdge],
    marks: Marks,
) -> dict[str, Any]:
    """The neighbourhoods as script data, less the drawn `nodes` and `edges`."""
    drawn_nodes = {node.id for node in nodes}
    drawn_edges = {_edge_id(edge) for edge in edges}
    return {
        node_id: {
            "nodes": [
                {"id": n.id, "shape": "dot", **_node_options(n, marks)}
                for n in hood.nodes
                if n.id not in drawn_nodes
            ],
            "edges": [
                {"id": _edge_id(e), "from": e.source, "to": e.target, "arrows": "to"}
                | _edge_options(e)
                for e in hood.edges
                if _edge_id(e) not in drawn_edges
            ],
        }
        for node_id, hood in neighbourhoods.items()
    }


def _edge_id(edge: VisEdge) -> str:
    """An id naming the edge's ends and label."""
    return json.dumps([edge.source, edge.label, edge.target])
