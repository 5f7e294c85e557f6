"""Several runs' evidence graphs side by side: one layout for all of them, so an entity two runs
found stands at the same place in each; the triples only one run found marked in it; zoom and
pan followed by every graph of the row."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import replace

from kgviz.kg.graph import KnowledgeGraph
from kgviz.trace import StringTriple, Trace
from kgviz.viz.escape import esc
from kgviz.viz.evidence_view import EdgeMark, GraphParts, evidence_parts
from kgviz.viz.graph_data import VisEdge, VisNode
from kgviz.viz.marks import Marks
from kgviz.viz.network import legend, network_frame
from kgviz.viz.placement import place

ONLY_HERE = EdgeMark("found by this method only", "#d9480f")
MOST = 3  # graphs in one row
PANEL_PX = 300  # the narrowest a graph of the row gets; a narrower frame wraps the row


def side_by_side(runs: Sequence[tuple[str, Trace]], kg: KnowledgeGraph | None = None) -> str:
    """HTML: the evidence graphs of the first `MOST` of `runs` (label, trace) in one row, under
    one legend, each headed by its label and counts; a run without evidence says so in its
    place."""
    runs = list(runs)[:MOST]
    found = {label: set(trace.evidence) for label, trace in runs}
    only = {label: _found_only_by(label, found) for label in found}
    parts = {
        label: _unlabelled(
            evidence_parts(
                trace.evidence,
                trace.answers,
                marks=Marks.of(trace),
                kg=kg,
                edge_marks=dict.fromkeys(only[label], ONLY_HERE),
            )
        )
        for label, trace in runs
    }
    drawn = [p for p in parts.values() if p is not None]
    if not drawn:
        return '<p style="font:13px sans-serif">No evidence triples.</p>'
    layout = place(*_union(drawn), roots=sorted({r for p in drawn for r in p.roots}))
    # one key per row, the same for the same runs in any process
    shown = sorted((label, sorted(triples)) for label, triples in found.items())
    sync = hashlib.sha256(repr(shown).encode()).hexdigest()[:12]
    key: dict[tuple[str, str], None] = {}
    cells = []
    for label, _ in runs:
        part = parts[label]
        if part is None:
            cells.append(_cell(label, "no evidence triples", ""))
            continue
        items, frame = network_frame(
            part.nodes,
            part.edges,
            part.marks,
            part.neighbourhoods,
            part.roots,
            layout=layout,
            sync=sync,
        )
        key.update(dict.fromkeys([*part.key, *items]))
        cells.append(_cell(label, _counts(part, len(only[label])), frame))
    note = "one layout for all: an entity stands at the same place in each; zooming or "
    note += "panning one graph moves them all; hover over an edge for its relation"
    # a row of cells as wide as the frame allows, each at least PANEL_PX (narrower, they wrap)
    grid = f"display:grid;grid-template-columns:repeat(auto-fit,minmax({PANEL_PX}px,1fr));gap:8px"
    return legend(key, note=note) + (
        f'<div class="kgviz-side-by-side" style="{grid}">{"".join(cells)}</div>'
    )


def _counts(part: GraphParts, only: int) -> str:
    opening = sum(edge.opening for edge in part.edges)
    first = f", opens on {opening}" if opening < len(part.edges) else ""
    return f"{len(part.edges)} triples{first}, {len(part.nodes)} entities; {only} found by it only"


def _unlabelled(part: GraphParts | None) -> GraphParts | None:
    """The graph with its relations on hover only: no room kept between columns for edge
    labels, so that a narrow graph of the row shows more of itself at legible labels."""
    if part is None:
        return None
    return replace(part, edges=[replace(edge, label="") for edge in part.edges])


def _found_only_by(label: str, found: dict[str, set[StringTriple]]) -> set[StringTriple]:
    others = set().union(*(triples for other, triples in found.items() if other != label))
    return found[label] - others


def _union(parts: Sequence[GraphParts]) -> tuple[list[VisNode], list[VisEdge]]:
    """Every graph's nodes (the first drawing of each) and edges, one edge per pair of ends and
    label (the graphs' labels are off, so one per pair: enough to lay them out), opening when
    any graph opens on it."""
    nodes: dict[str, VisNode] = {}
    for part in parts:
        nodes.update({node.id: node for node in part.nodes if node.id not in nodes})
    edges: dict[tuple[str, str, str], VisEdge] = {}
    for part in parts:
        for edge in part.edges:
            key = (edge.source, edge.label, edge.target)
            if key not in edges or (edge.opening and not edges[key].opening):
                edges[key] = edge
    return list(nodes.values()), list(edges.values())


def _cell(label: str, note: str, frame: str) -> str:
    """A graph under its label and counts (two lines at most, so that the graphs of a row
    start level)."""
    head = (
        f'<div style="font:bold 13px sans-serif">{esc(label)}</div>'
        f'<div title="{esc(note)}" style="font:12px sans-serif;color:#555;height:2.6em;'
        f'overflow:hidden">{esc(note)}</div>'
    )
    return f'<div class="kgviz-side" style="min-width:0">{head}{frame}</div>'
