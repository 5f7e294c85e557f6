"""Offline graphs: pyvis networks with inline vis-network in a sandboxed iframe, fitted to their
frame, with optional KG neighbourhoods shown on click and a score filter. Every data text goes
through `escape` (see its docstring for how each kind stays text)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pyvis.network import Network

from kgviz.viz.escape import esc, script_json, vis_text
from kgviz.viz.marks import Marks
from kgviz.viz.palette import KG_NEIGHBOUR

GRAPH_HEIGHT = 480
SPRING_PX = 140  # an unlabelled edge's rest length in the physics layout
LABEL_CHAR_PX = 7  # what each character of an edge's label adds to its rest length


def iframe(document: str, height: int = GRAPH_HEIGHT) -> str:
    """A whole HTML document shown in a sandboxed `<iframe srcdoc>` (writes no files)."""
    return (
        f'<iframe srcdoc="{esc(document)}" sandbox="allow-scripts" '
        f'style="width:100%;height:{height + 20}px;border:none"></iframe>'
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


@dataclass(frozen=True)
class VisNode:
    """A pyvis node: its id, its (data) label and tooltip, and vis-network style options."""

    id: str
    label: str
    title: str = ""
    style: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class VisEdge:
    """A directed pyvis edge between node ids, with a (data) label, tooltip and style; a `score`
    in [0, 1] puts the graph's edges under a score filter."""

    source: str
    target: str
    label: str = ""
    title: str = ""
    style: Mapping[str, Any] = field(default_factory=dict)
    score: float | None = None


@dataclass(frozen=True)
class Neighbourhood:
    """What clicking a drawn node adds to its graph (another click takes it away): `nodes` and
    the `edges` joining them to it, and how many more the cap left out."""

    nodes: tuple[VisNode, ...]
    edges: tuple[VisEdge, ...]
    more: int = 0


# Added to every pyvis document: no inner scrollbar, a "fit" button, and the graph fitted to its
# frame once laid out, on resize, and when a frame laid out while hidden becomes visible.
FRAMING = """<style>html,body{margin:0;overflow:hidden}.card{border:none!important}</style>
<button id="kgviz-fit" title="fit the whole graph in view" onclick="kgvizFit()"
 style="position:absolute;top:6px;right:10px;z-index:5;font:12px sans-serif">fit</button>
<script>
function kgvizFit(){ if (window.network) { network.redraw(); network.fit({animation: false}); } }
(function waitForNetwork(){
  if (!window.network) { setTimeout(waitForNetwork, 50); return; }
  network.once("stabilizationIterationsDone", kgvizFit);
  network.on("stabilized", kgvizFit);
  kgvizFit();
})();
window.addEventListener("resize", kgvizFit);
if ("ResizeObserver" in window) { new ResizeObserver(kgvizFit).observe(document.body); }
if ("IntersectionObserver" in window) {
  new IntersectionObserver(function (seen) {
    if (seen.some(function (e) { return e.isIntersecting; })) { kgvizFit(); }
  }).observe(document.body);
}
</script>"""


# pyvis's template links bootstrap from a CDN and a vis stylesheet by a relative path; kgviz's
# graphs need neither (vis-network is inlined), and an offline page must load nothing.
FETCHED = re.compile(
    r'<script[^>]*\bsrc="[^"]*"[^>]*>\s*</script>|<link[^>]*\bhref="[^"]*"[^>]*>', re.IGNORECASE
)


def framed(document: str, extras: str = "") -> str:
    """A pyvis document without anything fetched from elsewhere, with `FRAMING` and `extras`
    (more controls and scripts) added."""
    return FETCHED.sub("", document).replace("</body>", FRAMING + extras + "</body>", 1)


# Added with the neighbourhoods (`kgvizNeighbours`: node id -> nodes and edges): a click on a node
# toggles its neighbourhood; what is shown is the union of the open ones, less what was drawn.
EXPANDING = """<script>
var kgvizOpen = {}, kgvizAdded = {nodes: {}, edges: {}};
function kgvizDrop(set, added, wanted) {
  var gone = Object.keys(added).filter(function (id) { return !wanted[id]; });
  gone.forEach(function (id) { delete added[id]; });
  set.remove(gone);
}
function kgvizAdd(set, added, wanted) {
  var fresh = Object.keys(wanted).filter(function (id) { return set.get(id) === null; });
  fresh.forEach(function (id) { added[id] = true; });
  set.add(fresh.map(function (id) { return wanted[id]; }));
}
function kgvizToggle(id) {
  if (!kgvizNeighbours[id]) { return; }
  if (kgvizOpen[id]) { delete kgvizOpen[id]; } else { kgvizOpen[id] = true; }
  var wanted = {nodes: {}, edges: {}};
  Object.keys(kgvizOpen).forEach(function (open) {
    var at = network.getPosition(open), hood = kgvizNeighbours[open];
    hood.nodes.forEach(function (n) { wanted.nodes[n.id] = Object.assign({x: at.x, y: at.y}, n); });
    hood.edges.forEach(function (e) { wanted.edges[e.id] = e; });
  });
  kgvizDrop(edges, kgvizAdded.edges, wanted.edges);
  kgvizDrop(nodes, kgvizAdded.nodes, wanted.nodes);
  kgvizAdd(nodes, kgvizAdded.nodes, wanted.nodes);
  kgvizAdd(edges, kgvizAdded.edges, wanted.edges);
  if (window.kgvizFilter) { kgvizFilter(); }
  kgvizFit();
}
network.on("click", function (clicked) {
  if (clicked.nodes.length) { kgvizToggle(clicked.nodes[0]); }
});
</script>"""

# Added when edges have scores: a slider hiding the edges scored below it, and the nodes it leaves
# without a shown edge; edges without a score (e.g. KG neighbours) always show and are not counted.
FILTERING = """<div style="position:absolute;top:6px;left:10px;z-index:5;font:12px sans-serif;
 background:rgba(255,255,255,.85);padding:2px 4px">score &ge; <input id="kgviz-min-score"
 type="range" min="%(low)s" max="%(high)s" step="%(step)s" value="%(low)s" oninput="kgvizFilter()"
 style="vertical-align:middle"> <span id="kgviz-shown"></span></div>
<script>
function kgvizFilter() {
  var least = parseFloat(document.getElementById("kgviz-min-score").value);
  var ends = {}, shownEnds = {}, scored = 0, shown = 0;
  edges.update(edges.get().map(function (e) {
    var isScored = typeof e.score === "number", hidden = isScored && e.score < least;
    [e.from, e.to].forEach(function (n) { ends[n] = true; if (!hidden) { shownEnds[n] = true; } });
    scored += isScored ? 1 : 0;
    shown += isScored && !hidden ? 1 : 0;
    return {id: e.id, hidden: hidden};
  }));
  nodes.update(nodes.get().map(function (n) {
    return {id: n.id, hidden: Boolean(ends[n.id]) && !shownEnds[n.id]};
  }));
  document.getElementById("kgviz-shown").innerText =
    least.toFixed(3) + ": " + shown + " of " + scored + " edges shown";
}
kgvizFilter();
</script>"""


LAYERED = (
    '{"layout": {"hierarchical": {"enabled": true, "direction": "LR", '
    '"sortMethod": "directed", "levelSeparation": 320, "nodeSpacing": 90}}, '
    '"physics": {"enabled": false}, "edges": {"font": {"size": 11, "align": "middle"}, '
    '"smooth": false}, "interaction": {"hover": true}}'
)


def network_html(
    nodes: Sequence[VisNode],
    edges: Sequence[VisEdge],
    height: int = GRAPH_HEIGHT,
    layered: bool = False,
    marks: Marks | None = None,
    neighbourhoods: Mapping[str, Neighbourhood] | None = None,
) -> str:
    """The pyvis document of a graph with inline vis-network (offline), in an iframe; `layered`
    lays it out left to right along its edges (patterns, paths), with room for edge labels;
    otherwise each labelled edge rests longer the longer its label. With `marks`, nodes whose
    label is a gold answer or a topic entity get its border, hover text and a legend line above
    the graph. Clicking a node in `neighbourhoods` (node id -> what it adds) shows its
    neighbourhood, clicking again hides it; edges with a score get a score filter."""
    net = Network(
        height=f"{height}px", width="100%", directed=True, notebook=True, cdn_resources="in_line"
    )
    marks = marks or Marks()
    neighbourhoods = neighbourhoods or {}
    for node in nodes:
        hood = neighbourhoods.get(node.id)
        net.add_node(node.id, **_node_options(_with_hint(node, hood) if hood else node, marks))
    for edge in edges:
        net.add_edge(edge.source, edge.target, **_edge_options(edge, layered))
    net.set_options(
        LAYERED
        if layered
        else '{"physics": {"barnesHut": {"springLength": 140}, "stabilization": '
        '{"iterations": 200}}, "edges": {"font": {"size": 11, "align": "middle"}, '
        '"smooth": {"type": "dynamic"}}, "interaction": {"hover": true}}'
    )
    key = marks.legend_items(node.label for node in nodes)
    extras = _score_filter(edges)
    if neighbourhoods:
        key.append(("KG neighbours: click an entity to show them, again to hide", KG_NEIGHBOUR))
        extras = _expanding(neighbourhoods, nodes, edges, marks, layered) + extras
    return (legend(key) if key else "") + iframe(
        framed(net.generate_html(notebook=True), extras), height
    )


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


def _edge_options(edge: VisEdge, layered: bool) -> dict[str, Any]:
    """An edge's vis-network options but its ends: (data) label and title, its rest length
    growing with the label (physics layout), its score (for the filter), style."""
    options: dict[str, Any] = {}
    if edge.label:
        options = {"label": vis_text(edge.label), "title": vis_text(edge.title or edge.label)}
        if not layered:
            options["length"] = SPRING_PX + LABEL_CHAR_PX * len(edge.label)
    if edge.score is not None:
        options["score"] = edge.score
    return {**options, **edge.style}


def _expanding(
    neighbourhoods: Mapping[str, Neighbourhood],
    nodes: Sequence[VisNode],
    edges: Sequence[VisEdge],
    marks: Marks,
    layered: bool,
) -> str:
    """The neighbourhoods as script data, less the drawn `nodes` and `edges`, and `EXPANDING`."""
    drawn_nodes = {node.id for node in nodes}
    drawn_edges = {_edge_id(edge) for edge in edges}
    data = {
        node_id: {
            "nodes": [
                {"id": n.id, "shape": "dot", **_node_options(n, marks)}
                for n in hood.nodes
                if n.id not in drawn_nodes
            ],
            "edges": [
                {"id": _edge_id(e), "from": e.source, "to": e.target, "arrows": "to"}
                | _edge_options(e, layered)
                for e in hood.edges
                if _edge_id(e) not in drawn_edges
            ],
        }
        for node_id, hood in neighbourhoods.items()
    }
    return f"<script>var kgvizNeighbours = {script_json(data)};</script>{EXPANDING}"


def _edge_id(edge: VisEdge) -> str:
    """An id naming the edge's ends and label."""
    return json.dumps([edge.source, edge.label, edge.target])


def _score_filter(edges: Sequence[VisEdge]) -> str:
    """`FILTERING` over the range of the edges' scores, or nothing when no edge has one."""
    scores = [edge.score for edge in edges if edge.score is not None]
    if not scores:
        return ""
    low, high = min(scores), max(scores)
    return FILTERING % {"low": low, "high": high, "step": (high - low) / 100 or 1}
