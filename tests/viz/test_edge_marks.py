"""Marked edges: a class of triples drawn thick in its colour, named on hover and in the legend,
and the plain-triple legend entry only while some triple is drawn plain."""

from __future__ import annotations

from kgviz.viz.evidence_view import EdgeMark, evidence_graph
from kgviz.viz.palette import TRIPLE
from tests.viz.graph_pages import vis_data

TRIPLES = [("Lady Bird", "directed_by", "Greta Gerwig"), ("Barbie", "directed_by", "Greta Gerwig")]
CHANGES = EdgeMark("the answer changes <without> it", "#d9480f")


def legend_of(page: str) -> str:
    return page.split("<iframe")[0]


def test_a_marked_triple_is_drawn_in_its_mark_and_named_on_hover():
    page = evidence_graph(TRIPLES, edge_marks={TRIPLES[0]: CHANGES})
    _, edges = vis_data(page)
    marked, plain = sorted(edges, key=lambda edge: edge.get("width", 0), reverse=True)
    assert marked["color"] == CHANGES.colour and marked["width"] == 4
    hover = "Lady Bird —directed_by→ Greta Gerwig\nthe answer changes <without> it"
    assert marked["title"] == hover
    assert plain["color"] == TRIPLE and "width" not in plain
    legend = legend_of(page)
    assert "the answer changes &lt;without&gt; it" in legend and ">triple<" in legend


def test_the_plain_triple_entry_leaves_the_legend_when_every_triple_is_marked():
    page = evidence_graph(TRIPLES, edge_marks=dict.fromkeys(TRIPLES, CHANGES))
    legend = legend_of(page)
    assert ">triple<" not in legend and legend.count("the answer changes") == 1
    assert ">triple<" in legend_of(evidence_graph(TRIPLES))
