"""The graph layout, checked from the coordinates it assigns: a pattern whose nodes stand in one
row draws every edge clear of the nodes it does not join, edges between the same two nodes curve
apart, columns follow levels, and a large graph is laid out quickly."""

from __future__ import annotations

import math
import time

from kgviz.reasoners.simgrag.query_pattern import parse_pattern
from kgviz.reasoners.simgrag.views.pattern import pattern_graph
from kgviz.viz import evidence_graph
from kgviz.viz.edge_routes import curve
from kgviz.viz.layout import levels_along, levels_from
from kgviz.viz.network_script import MIN_SCALE
from kgviz.viz.placement import MAX_FULL_CANVAS_PX, ROW_WIDTH
from tests.viz.graph_pages import vis_data

U = "UNKNOWN"
CHAR_PX = 7.0  # a 14 px label character, as this test measures a node (the layout allows more)
SAMPLES = 400


def pattern_page(*triples: tuple[str, str, str]) -> tuple[list[dict], list[dict]]:
    return vis_data(pattern_graph(parse_pattern({"triples": [list(t) for t in triples]}, 6)))


def drawn_points(edge: dict, at: dict[str, tuple[float, float]]) -> list[tuple[float, float]]:
    """Points along an edge as vis-network draws it: straight, or its curvedCW/CCW curve."""
    smooth = edge.get("smooth") or {"type": "", "roundness": 0.0}
    bend = smooth["roundness"] * (1 if smooth["type"] == "curvedCW" else -1)
    return curve(at[edge["from"]], at[edge["to"]], bend, SAMPLES)


def crossings(nodes: list[dict], edges: list[dict]) -> list[tuple[str, str, str]]:
    """(edge's ends, node) wherever an edge passes over a node it does not join: within the
    node's box (its label's width, a line's height) around its centre."""
    at = {node["id"]: (node["x"], node["y"]) for node in nodes}
    half = {node["id"]: (CHAR_PX * len(node["label"]) / 2 + 5, 12.0) for node in nodes}
    found = []
    for edge in edges:
        points = drawn_points(edge, at)
        for node, (x, y) in at.items():
            if node not in (edge["from"], edge["to"]) and any(
                abs(px - x) <= half[node][0] and abs(py - y) <= half[node][1] for px, py in points
            ):
                found.append((edge["from"], edge["to"], node))
    return found


def test_a_three_hop_pattern_in_one_row_draws_every_edge_clear_of_the_other_nodes():
    """movie → Tom Hanks → person and movie → person: along the edges the three nodes stand in
    three columns of one row, so the straight movie → person edge would run through Tom Hanks
    (the tester's hidden "directed by"); it is curved around him instead."""
    nodes, edges = pattern_page(
        (f"{U} movie 1", "starred actors", "Tom Hanks"),
        ("Tom Hanks", "starred in", f"{U} person 1"),
        (f"{U} movie 1", "directed by", f"{U} person 1"),
    )
    xs = sorted(node["x"] for node in nodes)
    assert len({round(node["y"]) for node in nodes}) == 1 and xs[0] < xs[1] < xs[2]  # one row
    straight = [{**edge, "smooth": None} for edge in edges]
    assert crossings(nodes, straight) == [("n0", "n2", "n1")]  # what a straight line would hide
    assert crossings(nodes, edges) == []
    (bent,) = [edge for edge in edges if edge.get("smooth")]
    assert bent["label"] == "directed by"


def test_opposite_and_parallel_edges_curve_apart():
    """A → B and B → A, and two edges A → C: each curved, with distinct roundness, so that both
    lines and their labels stay visible."""
    nodes, edges = pattern_page(
        ("A", "directed by", "B"),
        ("B", "directed", "A"),
        ("A", "written by", "C"),
        ("A", "produced by", "C"),
    )
    at = {node["id"]: (node["x"], node["y"]) for node in nodes}
    assert all(edge.get("smooth", {}).get("type") in ("curvedCW", "curvedCCW") for edge in edges)
    for first, second in ((edges[0], edges[1]), (edges[2], edges[3])):
        assert first["smooth"]["roundness"] != second["smooth"]["roundness"]
        middle = [drawn_points(edge, at)[SAMPLES // 2] for edge in (first, second)]
        assert math.dist(*middle) > 30  # the labels sit there, apart
    assert crossings(nodes, edges) == []


def test_levels_follow_the_edges_or_the_hops_from_the_roots():
    ids = ["a", "b", "c", "d", "e"]
    links = [("a", "b"), ("b", "c"), ("c", "a"), ("d", "c")]  # a cycle, and d into it
    assert levels_along(ids, links) == {"a": 0, "b": 1, "c": 2, "d": 0, "e": 0}
    assert levels_from(ids, links, {"c"}) == {"c": 0, "a": 1, "b": 1, "d": 1, "e": 0}


def test_a_large_evidence_graph_lays_out_quickly_and_opens_on_what_matters():
    """300 triples around one topic: laid out in well under a few seconds, every node placed, the
    first columns apart, and the graph opens on the paths to the answer, then a few more."""
    triples = [("topic", "r", f"film {i}") for i in range(60)]
    triples += [(f"film {i}", "s", f"person {i % 90}") for i in range(240)]
    start = time.perf_counter()
    page = evidence_graph(triples, highlight=["person 7"])
    assert time.perf_counter() - start < 5
    nodes, edges = vis_data(page)
    x = {node["label"]: node["x"] for node in nodes}
    assert x["topic"] < x["film 0"] < x["person 0"]
    shown = [edge for edge in edges if edge.get("opening", True)]
    assert 2 <= len(shown) <= 15 and len(edges) == 300 and "kgviz-all" in page


def test_show_all_lays_the_whole_graph_out_apart_with_its_tall_columns_wrapped():
    """A star of 60 triples opens on 15 of them laid out alone; "show all" has a placement of
    its own, where the 60-leaf column continues in further columns, within the tallest frame
    at legible labels and the width of a narrow one."""
    triples = [("Hub", "links", f"Leaf {n}") for n in range(60)]
    nodes, edges = vis_data(evidence_graph(triples))
    assert all((n["firstX"], n["firstY"]) == (n["x"], n["y"]) for n in nodes)
    full = {n["id"]: (n["fullX"], n["fullY"]) for n in nodes}
    leaf_columns = {round(x) for node, (x, _) in full.items() if node != "Hub"}
    xs, ys = [x for x, _ in full.values()], [y for _, y in full.values()]
    assert len(leaf_columns) > 1
    assert (max(ys) - min(ys)) * MIN_SCALE < MAX_FULL_CANVAS_PX
    assert max(xs) - min(xs) < ROW_WIDTH
    assert all("fullSmooth" in e and "firstSmooth" in e for e in edges)
