"""Graph views linked to the KG, run in headless Chromium: a click adds a node's KG neighbours to
the drawn graph without duplicates and a second click takes them away; the score slider hides
low-scored edges and the nodes they leave alone."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

import pytest

from kgviz.kg.graph import KnowledgeGraph
from kgviz.viz import evidence_graph
from tests.browser.chromium import launched

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with launched() as chromium:
        yield chromium


def opened(browser, view: str) -> tuple[object, list[str]]:
    """A page holding the document of the view's (single) iframe, its network drawn, and the
    script errors it raises."""
    (document,) = re.findall(r'srcdoc="([^"]*)"', view)
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_content(html.unescape(document))
    page.wait_for_function("window.network !== undefined")
    return page, errors


def counts(page) -> tuple[int, int]:
    return tuple(page.evaluate("[network.body.data.nodes.length, network.body.data.edges.length]"))


def click(page, node: str) -> tuple[int, int]:
    page.evaluate("id => network.body.emitter.emit('click', {nodes: [id], edges: []})", node)
    return counts(page)


def test_clicks_expand_and_collapse_kg_neighbourhoods(browser):
    """A and B share the neighbour C: it comes once, and stays while either is open."""
    kg = KnowledgeGraph.from_triples(
        [("A", "r", "B"), ("A", "s", "C"), ("B", "s", "C"), ("A", "t", "D")]
    )
    page, errors = opened(browser, evidence_graph([("A", "r", "B")], kg=kg))
    assert counts(page) == (2, 1)
    assert click(page, "A") == (4, 3)  # C, D and their edges
    assert click(page, "B") == (4, 4)  # only the edge B -> C
    assert click(page, "A") == (3, 2)  # D goes, C stays for B
    assert click(page, "B") == (2, 1)
    assert click(page, "C") == (2, 1)  # not drawn, nothing to expand
    assert errors == []


def test_score_slider_hides_low_scored_edges_and_lone_nodes(browser):
    triples = {("A", "r", "B"): 0.9, ("B", "r", "C"): 0.2}
    page, errors = opened(browser, evidence_graph(triples, triple_scores=triples))
    assert page.inner_text("#kgviz-shown").endswith("2 of 2 edges shown")
    page.eval_on_selector(
        "#kgviz-min-score", "e => { e.value = 0.5; e.dispatchEvent(new Event('input')); }"
    )
    assert page.inner_text("#kgviz-shown").endswith("1 of 2 edges shown")
    hidden = "network.body.data.nodes.get().filter(n => n.hidden).map(n => n.id)"
    assert page.evaluate(hidden) == ["C"]
    assert errors == []
