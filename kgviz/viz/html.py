"""Text safety and offline graphs: escaping data for HTML and plotly, pyvis shown in an iframe.

Where data text goes, and how it stays text:
- HTML (tables, the prompt view, legends, the srcdoc attribute): `esc`, `html.escape` with quotes.
- plotly labels, titles and hovers: `plotly_text`. plotly reads tags (`<b>`, `<a>`, ...) in text
  and decodes only a few entities (`&amp;`, `&lt;`, `&gt;`, numeric, not `&quot;`), so `&<>` only.
- pyvis (vis-network 9.1.2) labels are drawn on a canvas and string titles are set with
  `innerText`, so both stay text as they are; pyvis serialises them with jinja's `tojson`, which
  writes `<`, `>`, `&` and `'` as `\\u` escapes. `vis_text` only defuses pyvis's one HTML path: a
  node title containing "href" switches pyvis to a popup filled with `innerHTML`.
The iframe is sandboxed (scripts, no same origin), so even a missed case cannot reach the notebook.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pyvis.network import Network

from kgviz.viz.marks import Marks

GRAPH_HEIGHT = 480


def esc(value: object) -> str:
    """Data as HTML text or attribute value."""
    return html.escape(str(value), quote=True)


def plotly_text(value: object, limit: int | None = None) -> str:
    """Data as plotly text (labels, titles, hover), cut to `limit` characters with an ellipsis."""
    text = str(value)
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    return html.escape(text, quote=False)


def vis_text(value: object) -> str:
    """Data as a pyvis label or title (plain text; see the module docstring)."""
    return str(value).replace("href", "hre\u200df")


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
    """A directed pyvis edge between node ids, with a (data) label, tooltip and style."""

    source: str
    target: str
    label: str = ""
    title: str = ""
    style: Mapping[str, Any] = field(default_factory=dict)


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


def framed(document: str) -> str:
    """A pyvis document without anything fetched from elsewhere, with `FRAMING` added."""
    return FETCHED.sub("", document).replace("</body>", FRAMING + "</body>", 1)


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
) -> str:
    """The pyvis document of a graph with inline vis-network (offline), in an iframe; `layered`
    lays it out left to right along its edges (patterns, paths), with room for edge labels.
    With `marks`, nodes whose label is a gold answer or a topic entity get its border, hover
    text and a legend line above the graph."""
    net = Network(
        height=f"{height}px", width="100%", directed=True, notebook=True, cdn_resources="in_line"
    )
    marks = marks or Marks()
    for node in nodes:
        role = marks.role(node.label)
        title = node.title or node.label
        net.add_node(
            node.id,
            label=vis_text(node.label),
            title=vis_text(f"{title}\n{role}" if role else title),
            **marks.vis_style(node.label, node.style),
        )
    for edge in edges:
        texts = {"label": edge.label, "title": edge.title or edge.label} if edge.label else {}
        net.add_edge(
            edge.source, edge.target, **{k: vis_text(v) for k, v in texts.items()}, **edge.style
        )
    net.set_options(
        LAYERED
        if layered
        else '{"physics": {"barnesHut": {"springLength": 140}, "stabilization": '
        '{"iterations": 200}}, "edges": {"font": {"size": 11, "align": "middle"}, '
        '"smooth": {"type": "dynamic"}}, "interaction": {"hover": true}}'
    )
    key = marks.legend_items(node.label for node in nodes)
    return (legend(key) if key else "") + iframe(framed(net.generate_html(notebook=True)), height)
