"""Evidence graphs side by side, read from the documents they write: one layout for all, the
triples only one run found marked in it, relations on hover, frames that follow each other."""

from __future__ import annotations

import re

from kgviz.trace import Trace
from kgviz.viz.side_by_side import MOST, ONLY_HERE, side_by_side
from tests.viz.graph_pages import document_data, srcdocs

SHARED = [
    ("Forrest Gump", "directed_by", "Robert Zemeckis"),
    ("Forrest Gump", "starred", "Tom Hanks"),
]


def run(method: str, *extra: tuple[str, str, str]) -> Trace:
    return Trace(
        method=method, question="q", evidence=[*SHARED, *extra], answers=["Robert Zemeckis"]
    )


def frames(page: str) -> list[tuple[list[dict], list[dict]]]:
    return [document_data(doc) for doc in srcdocs(page)]


def sync_keys(page: str) -> list[str]:
    return [re.search(r'"sync": "(\w*)"', doc).group(1) for doc in srcdocs(page)]


def test_shared_entities_stand_at_one_place_and_only_one_runs_triples_are_marked():
    runs = [
        ("a", run("a", ("Cast Away", "starred", "Tom Hanks"))),
        ("b", run("b")),
        ("c", run("c", ("Forrest Gump", "release_year", "1994"))),
    ]
    page = side_by_side(runs)
    drawn = frames(page)
    keys = sync_keys(page)
    assert len(drawn) == 3 and keys[0] and len(set(keys)) == 1  # the three follow each other
    places = [{n["id"]: (n["x"], n["y"]) for n in nodes} for nodes, _ in drawn]
    for name in ("Forrest Gump", "Robert Zemeckis", "Tom Hanks"):
        assert places[0][name] == places[1][name] == places[2][name]
    marked = [[e for e in edges if e.get("color") == ONLY_HERE.colour] for _, edges in drawn]
    assert [len(m) for m in marked] == [1, 0, 1]
    assert "1 found by it only" in page and "0 found by it only" in page
    for _, edges in drawn:  # relations on hover only
        assert all("label" not in e and "—" in e["title"] for e in edges)


def test_at_most_three_side_by_side_and_a_run_without_evidence_says_so():
    runs = [(name, run(name)) for name in "abcd"]
    assert len(frames(side_by_side(runs))) == MOST
    empty = Trace(method="llm-only", question="q")
    page = side_by_side([("a", run("a")), ("llm-only", empty)])
    assert len(frames(page)) == 1 and "no evidence triples" in page
    assert "No evidence triples" in side_by_side([("llm-only", empty)])
