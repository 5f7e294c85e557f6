"""The controls and scripts inside a graph's iframe (offline, no library but vis-network).

The bar above the canvas: "fit", "full screen", "show all" (when the graph opens on part of its
edges), a score slider (when edges have scores) and a drop-down of a checkbox per section. The
graph opens on its default view: fitted to what is shown, but never below the zoom at which node
labels are legible, the top left (where the roots stand) in view when that does not fit. The
default view follows resizes, a frame shown late, full screen and the controls until the user
drags or zooms the graph (or clicks a node); from then on nothing moves the view but the user and
the "fit" button, and a resize keeps the user's zoom (vis-network would scale it with the frame).
"Show all" moves every node to its place in the whole graph and grows the canvas to the height
that placement asked for (`placement`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kgviz.viz.escape import esc, script_json
from kgviz.viz.graph_data import Section

BAR_PX = 30
FONT_PX = 14  # node labels, in canvas units
LEGIBLE_PX = 9.5  # the smallest rendered node label the default view allows
MIN_SCALE = LEGIBLE_PX / FONT_PX
VIEW_PAD_PX = 20  # the default view's margin around the graph
MAX_SCALE = 1.0
FAN_DX, FAN_DY = 220, 34  # where a node's KG neighbours appear: a column to its right

STYLE = """<style>html,body{margin:0;overflow:hidden}.card{border:none!important}
#kgviz-bar{height:%(bar)dpx;box-sizing:border-box;padding:4px 6px;font:12px sans-serif;
white-space:nowrap;overflow-x:auto;overflow-y:hidden}
#kgviz-bar button{font:12px sans-serif;margin-right:6px}
#kgviz-bar label{margin-right:10px}#kgviz-bar input[type=range]{vertical-align:middle}
#kgviz-sections{display:inline-block;position:relative}#kgviz-sections summary{cursor:pointer}
#kgviz-section-list{position:fixed;z-index:10;background:#fff;border:1px solid #bbb;
padding:4px 8px;max-height:60vh;overflow-y:auto;box-shadow:0 2px 6px rgba(0,0,0,.2)}
#kgviz-section-list label{display:block;margin:2px 0}</style>"""

# The default view, the user's touch, resizes and full screen; `kgvizApply` shows what the
# sections, "show all" and the score slider leave shown.
FRAMING = """<script>
var kgvizTouched = false, kgvizAll = false, kgvizReady = false, kgvizScale = null;
var kgvizDrawn = edges.getIds();  // the graph's own edges, not KG neighbours shown on click
function kgvizTouch() { kgvizTouched = true; kgvizScale = network.getScale(); }
function kgvizFit() {
  network.redraw();
  network.fit({animation: false, maxZoomLevel: kgvizView.maxScale});
  if (kgvizTouched) { kgvizScale = network.getScale(); }
}
function kgvizResized() {  // after vis-network has scaled the view with its frame
  setTimeout(function () {
    if (!kgvizTouched) { kgvizDefaultView(); return; }
    network.moveTo({scale: kgvizScale, position: network.getViewPosition(), animation: false});
  }, 0);
}
function kgvizDefaultView() {
  var box = network.body.container;
  if (kgvizTouched || !box.clientWidth || !box.clientHeight) { return; }
  network.redraw();
  network.fit({animation: false, minZoomLevel: kgvizView.minScale,
               maxZoomLevel: kgvizView.maxScale});
  var ids = network.body.nodeIndices, scale = network.getScale();
  if (ids.length) {
    var boxes = ids.map(function (id) { return network.getBoundingBox(id); });
    var left = Math.min.apply(null, boxes.map(function (b) { return b.left; }));
    var right = Math.max.apply(null, boxes.map(function (b) { return b.right; }));
    var top = Math.min.apply(null, boxes.map(function (b) { return b.top; }));
    var bottom = Math.max.apply(null, boxes.map(function (b) { return b.bottom; }));
    var wide = box.clientWidth / scale, tall = box.clientHeight / scale,
      pad = kgvizView.pad / scale;
    network.moveTo({scale: scale, animation: false, position: {
      x: right - left + 2 * pad > wide ? left - pad + wide / 2 : (left + right) / 2,
      y: bottom - top + 2 * pad > tall ? top - pad + tall / 2 : (top + bottom) / 2}});
  }
  kgvizReady = true;
}
function kgvizApply() {
  var open = {};
  document.querySelectorAll("input[data-kgviz-section]").forEach(function (box) {
    open[box.getAttribute("data-kgviz-section")] = box.checked;
  });
  var slider = document.getElementById("kgviz-min-score");
  var least = slider ? parseFloat(slider.value) : -Infinity;
  var ends = {}, shownEnds = {}, scored = 0, shown = 0;
  edges.update(edges.get().map(function (e) {
    var isScored = typeof e.score === "number", closed = open[e.section] === false;
    var hidden = closed || (e.opening === false && !kgvizAll) || (isScored && e.score < least);
    [e.from, e.to].forEach(function (n) { ends[n] = true; if (!hidden) { shownEnds[n] = true; } });
    scored += isScored && !closed && (kgvizAll || e.opening !== false) ? 1 : 0;
    shown += isScored && !hidden ? 1 : 0;
    return {id: e.id, hidden: hidden};
  }));
  nodes.update(nodes.get().map(function (n) {
    var alone = Boolean(ends[n.id]) && !shownEnds[n.id];
    return {id: n.id, hidden: open[n.section] === false || alone};
  }));
  if (slider) {
    document.getElementById("kgviz-shown").innerText =
      least.toFixed(3) + ": " + shown + " of " + scored + " edges shown";
  }
  var boxes = Object.keys(open), summary = document.getElementById("kgviz-sections-shown");
  if (summary) {
    summary.innerText = boxes.filter(function (key) { return open[key]; }).length + " of " +
      boxes.length;
  }
  kgvizCountAll(open);
  kgvizDefaultView();
}
function kgvizCountAll(open) {  // what "show all" shows, in the open sections
  var button = document.getElementById("kgviz-all");
  if (!button) { return; }
  var mine = edges.get(kgvizDrawn).filter(function (e) { return open[e.section] !== false; });
  var first = mine.filter(function (e) { return e.opening !== false; }).length;
  button.innerText = kgvizAll ? "show the " + first + " it opened on" :
    "show all " + mine.length + " edges";
  button.disabled = !kgvizAll && first === mine.length;
}
function kgvizShowAll() {  // every node to its place in the whole graph, the canvas grown
  kgvizAll = !kgvizAll;
  var to = kgvizAll ? "full" : "first";
  nodes.update(nodes.get().filter(function (n) { return n[to + "X"] !== undefined; })
    .map(function (n) { return {id: n.id, x: n[to + "X"], y: n[to + "Y"]}; }));
  edges.update(edges.get(kgvizDrawn).filter(function (e) { return e[to + "Smooth"]; })
    .map(function (e) { return {id: e.id, smooth: e[to + "Smooth"]}; }));
  if (!document.fullscreenElement) { kgvizSizeCanvas(); }
  kgvizApply();
}
function kgvizSizeCanvas(height) {  // default: as tall as what is shown needs
  document.getElementById("mynetwork").style.height =
    height || (kgvizAll ? kgvizView.fullPx : kgvizView.firstPx) + "px";
  network.setSize("100%", "100%");
}
function kgvizFullScreen() {
  if (document.fullscreenElement) { document.exitFullscreen(); return; }
  document.documentElement.requestFullscreen().catch(function () {});
}
document.addEventListener("fullscreenchange", function () {
  var full = Boolean(document.fullscreenElement), bar = document.getElementById("kgviz-bar");
  document.getElementById("kgviz-full").innerText = full ? "exit full screen" : "full screen";
  kgvizSizeCanvas(full ? "calc(100vh - " + bar.offsetHeight + "px)" : "");
  kgvizDefaultView();
});
network.on("dragStart", kgvizTouch);
network.on("zoom", kgvizTouch);
network.on("resize", kgvizResized);
window.addEventListener("resize", kgvizDefaultView);
if ("ResizeObserver" in window) { new ResizeObserver(kgvizDefaultView).observe(document.body); }
if ("IntersectionObserver" in window) {
  new IntersectionObserver(function (seen) {
    if (seen.some(function (e) { return e.isIntersecting; })) { kgvizDefaultView(); }
  }).observe(document.body);
}
kgvizApply();
</script>"""

# Added with the neighbourhoods (`kgvizNeighbours`: node id -> nodes and edges): a click on a node
# toggles its neighbourhood, drawn in a column to its right; what is shown is the union of the
# open ones, less what was drawn.
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
  kgvizTouch();
  if (kgvizOpen[id]) { delete kgvizOpen[id]; } else { kgvizOpen[id] = true; }
  var wanted = {nodes: {}, edges: {}};
  Object.keys(kgvizOpen).forEach(function (open) {
    var at = network.getPosition(open), hood = kgvizNeighbours[open], n = hood.nodes.length;
    hood.nodes.forEach(function (node, i) {
      var spot = {x: at.x + kgvizView.fanDx, y: at.y + (i - (n - 1) / 2) * kgvizView.fanDy};
      wanted.nodes[node.id] = Object.assign(spot, node);
    });
    hood.edges.forEach(function (e) { wanted.edges[e.id] = e; });
  });
  kgvizDrop(edges, kgvizAdded.edges, wanted.edges);
  kgvizDrop(nodes, kgvizAdded.nodes, wanted.nodes);
  kgvizAdd(nodes, kgvizAdded.nodes, wanted.nodes);
  kgvizAdd(edges, kgvizAdded.edges, wanted.edges);
  kgvizApply();
}
network.on("click", function (clicked) {
  if (clicked.nodes.length) { kgvizToggle(clicked.nodes[0]); }
});
</script>"""


# Frames of one `sync` key (graphs drawn side by side) follow each other: the user's zoom, pan
# and "fit" in one are posted to every frame of the page beside it (a sandboxed frame may post to
# its siblings, not read them), and each applies what it is sent as the user's own.
SYNCING = """<script>
function kgvizPost(change) {
  var frames = window.parent.frames;
  for (var i = 0; i < frames.length; i++) {
    if (frames[i] !== window) {
      frames[i].postMessage(Object.assign({kgvizSync: kgvizView.sync}, change), "*");
    }
  }
}
function kgvizPostView() {
  kgvizPost({scale: network.getScale(), position: network.getViewPosition()});
}
network.on("zoom", kgvizPostView);
network.on("dragging", kgvizPostView);
network.on("dragEnd", kgvizPostView);
document.getElementById("kgviz-fit").addEventListener("click", kgvizPostView);
window.addEventListener("message", function (event) {
  var change = event.data;
  if (!change || change.kgvizSync !== kgvizView.sync) { return; }
  kgvizTouched = true;
  kgvizScale = change.scale;
  network.moveTo({scale: change.scale, position: change.position, animation: false});
});
</script>"""


def control_bar(sections: Sequence[Section], hidden: bool, scores: Sequence[float]) -> str:
    """The bar of controls (with its style): fit, full screen, "show all" when some edges are
    `hidden` at first, the score slider over `scores`, a checkbox per section (when there are
    several)."""
    parts = [
        '<button id="kgviz-fit" title="fit the whole graph" onclick="kgvizFit()">fit</button>',
        '<button id="kgviz-full" onclick="kgvizFullScreen()">full screen</button>',
    ]
    if hidden:
        parts.append('<button id="kgviz-all" onclick="kgvizShowAll()">show all</button>')
    if scores:
        low, high = min(scores), max(scores)
        parts.append(
            f'score &ge; <input id="kgviz-min-score" type="range" min="{low}" max="{high}" '
            f'step="{(high - low) / 100 or 1}" value="{low}" oninput="kgvizApply()"> '
            '<span id="kgviz-shown"></span>'
        )
    if len(sections) > 1:
        boxes = "".join(
            f'<label title="{esc(s.title or s.label)}"><input type="checkbox" '
            f'data-kgviz-section="{esc(s.key)}"{" checked" if s.open else ""} '
            f'onchange="kgvizApply()"> {esc(s.label)}</label>'
            for s in sections
        )
        parts.append(
            '<details id="kgviz-sections"><summary>graphs shown: '
            '<span id="kgviz-sections-shown"></span></summary>'
            f'<div id="kgviz-section-list">{boxes}</div></details>'
        )
    return STYLE % {"bar": BAR_PX} + f'<div id="kgviz-bar">{" ".join(parts)}</div>'


def scripts(
    neighbourhoods: Mapping[str, Any] | None, heights: tuple[int, int], sync: str = ""
) -> str:
    """The view's constants (`heights`: the canvas's pixels at first and after "show all"),
    `FRAMING`, `EXPANDING` with `neighbourhoods` (script data, see `network._expanding`) when
    there are any, and `SYNCING` with the `sync` key when there is one."""
    view = {
        "sync": sync,
        "firstPx": heights[0],
        "fullPx": heights[1],
        "minScale": MIN_SCALE,
        "maxScale": MAX_SCALE,
        "pad": VIEW_PAD_PX,
        "fanDx": FAN_DX,
        "fanDy": FAN_DY,
    }
    parts = [f"<script>var kgvizView = {script_json(view)};</script>", FRAMING]
    if neighbourhoods:
        parts.append(f"<script>var kgvizNeighbours = {script_json(neighbourhoods)};</script>")
        parts.append(EXPANDING)
    if sync:
        parts.append(SYNCING)
    return "".join(parts)
