"""SimGRAG's subgraphs cut to edited evidence (`kgviz regenerate`): a triple put in place of a
removed one keeps its subgraph's rank and mapping; other added triples are one more subgraph."""

from __future__ import annotations

import math

from kgviz.reasoners.simgrag.subgraphs import EdgeMatch, NodeMatch, Subgraph, edited

DIRECTED = ("Forrest Gump", "directed_by", "Robert Zemeckis")
STARRED = ("Forrest Gump", "starred_actors", "Tom Hanks")


def found() -> list[Subgraph]:
    nodes = [
        NodeMatch(0, "Forrest Gump", 1, "Forrest Gump", 0.0),
        NodeMatch(1, "UNKNOWN person 1", 2, "Robert Zemeckis", 0.0),
        NodeMatch(2, "UNKNOWN actor 1", 3, "Tom Hanks", 0.0),
    ]
    edges = [
        EdgeMatch(0, "directed by", 10, DIRECTED, 0.1),
        EdgeMatch(1, "starred", 11, STARRED, 0.2),
    ]
    return [Subgraph(1, (0,), 0.3, [DIRECTED, STARRED], nodes, edges)]


def test_a_replaced_tail_takes_the_dropped_triples_place_and_mapping():
    new = ("Forrest Gump", "directed_by", "Ada Lovelace")
    (graph,) = edited(found(), [STARRED, new])
    assert graph.rank == 1 and graph.triples == [new, STARRED]
    assert [e.names for e in graph.edges] == [new, STARRED] and graph.edges[0].triple == -1
    names = {m.name: m for m in graph.nodes}
    assert set(names) == {"Forrest Gump", "Tom Hanks", "Ada Lovelace"}
    ada = names["Ada Lovelace"]
    assert ada.pattern_node == 1 and ada.entity == -1 and math.isnan(ada.distance)


def test_an_unrelated_added_triple_is_one_more_subgraph_and_a_drop_cuts_the_mapping():
    other = ("Cast Away", "directed_by", "Ada Lovelace")
    first, extra = edited(found(), [STARRED, other])
    assert first.triples == [STARRED] and [e.names for e in first.edges] == [STARRED]
    assert {m.name for m in first.nodes} == {"Forrest Gump", "Tom Hanks"}
    assert extra.rank == 2 and extra.triples == [other] and not extra.edges


def test_evidence_left_whole_is_the_found_subgraphs():
    assert edited(found(), [DIRECTED, STARRED]) == found()
