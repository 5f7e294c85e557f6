"""Views: each one on hand-built records (fast) and on real traces (demo, offline LLM), and data
text that looks like HTML rendered as text in every view."""

from __future__ import annotations

import html
import json
import re
import time

import plotly.graph_objects as go
import pytest

from kgviz.datasets.custom import CustomDataset
from kgviz.datasets.registry import get_dataset
from kgviz.embed.kg_index import Neighbour
from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners import catalog  # noqa: F401  (registers the methods)
from kgviz.reasoners.base import ReasonerContext
from kgviz.reasoners.kaping import ScoredTriple, TripleRanking
from kgviz.reasoners.linking import EntityLinking, LinkedEntity
from kgviz.reasoners.registry import make_reasoner
from kgviz.reasoners.simgrag.pools import ElementPool, PatternPools
from kgviz.reasoners.simgrag.query_pattern import parse_pattern
from kgviz.reasoners.simgrag.reasoner import ComponentSearch, Generation, SearchRecord
from kgviz.reasoners.simgrag.search_tree import SearchTree
from kgviz.reasoners.simgrag.subgraphs import EdgeMatch, NodeMatch, Subgraph
from kgviz.trace import LLMCall, Trace
from kgviz.viz import (
    evidence_graph,
    pattern_graph,
    pools_figure,
    prompt_view,
    search_tree_figure,
    stage_views,
    subgraphs_graph,
    timing_figure,
)
from kgviz.viz.html import plotly_text, vis_text
from kgviz.viz.palette import ANSWER, node_colour, relation_colour
from kgviz.viz.search_tree_view import OUTCOMES

EVIL = "<img src=x onerror=alert(1)>"
ESCAPED = html.escape(EVIL)
JANE = "Jane \"J\" O'Doe & <b>Co</b>"


# ----------------------------------------------------------------- helpers
def srcdocs(page: str) -> list[str]:
    """The documents inside the iframes of an HTML view."""
    return [html.unescape(doc) for doc in re.findall(r'srcdoc="([^"]*)"', page)]


def vis_data(page: str) -> tuple[list[dict], list[dict]]:
    """The nodes and edges pyvis wrote into the (single) iframe of a view."""
    (doc,) = srcdocs(page)
    nodes = re.search(r"nodes = new vis\.DataSet\((.*?)\);\n", doc).group(1)
    edges = re.search(r"edges = new vis\.DataSet\((.*?)\);\n", doc).group(1)
    return json.loads(nodes), json.loads(edges)


def strings(value) -> list[str]:
    """Every string in a nested figure dict."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in strings(v)]
    return []


def rendered_texts(view: object) -> list[str]:
    """What a browser parses as HTML or plotly markup: the page, its iframe documents, or every
    string of a figure."""
    if isinstance(view, go.Figure):
        return strings(view.to_dict())
    assert isinstance(view, str)
    return [view, *srcdocs(view)]


def assert_no_raw_markup(views: dict[str, object]) -> None:
    for name, view in views.items():
        for text in rendered_texts(view):
            assert "<img" not in text.lower(), (name, text[:300])
            assert "<b>Co" not in text, name


# ----------------------------------------------------------------- hand-built records
def hand_kg() -> KnowledgeGraph:
    return KnowledgeGraph.from_triples([(EVIL, "directed_by", JANE),
                                        (EVIL, "starred_actors", "Tom"),
                                        ("Other", "directed_by", JANE)])


def simgrag_trace() -> Trace:
    """A SimGRAG trace as the reasoner records it, named after the hostile entity."""
    pattern = parse_pattern({"phrases": [f"{EVIL} was directed by someone"],
                             "triples": [[EVIL, "directed by", "UNKNOWN person 1"]]}, 6)
    pools = PatternPools(
        [ElementPool("node", 0, EVIL, False, [Neighbour(0, EVIL, 0.0, 0),
                                              Neighbour(3, "Other", 0.5, 1)]),
         ElementPool("node", 1, "UNKNOWN person 1", True, [])],
        [ElementPool("relation", 0, "directed by", False, [Neighbour(0, "directed_by", 0.1, 0),
                                                          Neighbour(1, "starred_actors", 0.9, 1)])],
        {})
    tree = SearchTree(max_nodes=3)
    root = tree.add(-1, 0, -1, 0, 0, -1, 0.0, 0.1)
    tree.add(root, 1, 0, 1, 1, 0, 0.1, 0.1, "in_topk")
    tree.add(-1, 0, -1, 0, 3, -1, 0.5, 0.6, "pruned_bound", 1)
    tree.add(-1, 0, -1, 0, 2, -1, 0.7, 0.8, "pruned_bound")  # past the cap: dropped
    search = SearchRecord("optimized", [ComponentSearch(0, (0, 1), (0,), "complete", 2, 1, 0.002,
                                                        1, tree)])
    triple = (EVIL, "directed_by", JANE)
    found = [Subgraph(1, 0, 0.1, [triple], [NodeMatch(0, EVIL, 0, EVIL, 0.0),
                                            NodeMatch(1, "UNKNOWN person 1", 1, JANE, 0.0)],
                      [EdgeMatch(0, "directed by", 0, triple, 0.1)])]
    calls = [LLMCall("pattern", [{"role": "user", "content": f"question: who directed {EVIL}"}],
                     json.dumps({"triples": [[EVIL, "directed by", "UNKNOWN person 1"]]}),
                     20, 10, 0.5, "local", "m"),
             LLMCall("generation", [{"role": "user", "content": f"graph 1: {triple}"}],
                     f'{{"answer": ["{JANE}"]}}', 30, 5, 0.4, "local", "m")]
    return Trace("simgrag", f"who directed {EVIL}", "hand",
                 stages={"pattern": pattern, "pools": pools, "search": search, "subgraphs": found,
                         "generation": Generation("qa", "graph 1", [JANE])},
                 timings={"pattern": 0.5, "pools": 0.1, "search": 0.01, "retrieval": 0.61,
                          "generation": 0.4, "total": 1.02},
                 llm_calls=calls, evidence=[triple], answer=f"{JANE}. graph 1", answers=[JANE])


def kaping_trace() -> Trace:
    ranked = [ScoredTriple(EVIL, "directed_by", JANE, 1, 0.8, True),
              ScoredTriple(EVIL, "starred_actors", "Tom", 1, 0.3, False)]
    return Trace("kaping", f"who directed {EVIL}", "hand",
                 stages={"linking": EntityLinking(f"who directed {EVIL}", "given",
                                                  [LinkedEntity(0, EVIL, EVIL, "given")], [EVIL]),
                         "triples": TripleRanking(ranked, 1, 0)},
                 timings={"retrieval": 0.2, "generation": 0.3, "total": 0.5},
                 llm_calls=[LLMCall("generation", [{"role": "user", "content": EVIL}], JANE, 9, 3,
                                    0.3, "local", "m")],
                 evidence=[(EVIL, "directed_by", JANE)], answer=JANE, answers=[JANE])


def test_stage_views_cover_every_stage_in_run_order():
    assert list(stage_views(simgrag_trace(), hand_kg())) == [
        "pattern", "pools", "search", "subgraphs", "prompt", "timing"]
    assert list(stage_views(kaping_trace())) == ["linking", "triples", "evidence", "prompt",
                                                 "timing"]


@pytest.mark.parametrize("make", [simgrag_trace, kaping_trace])
def test_hostile_names_render_as_text_in_every_view(make):
    views = stage_views(make(), hand_kg())
    assert_no_raw_markup(views)
    html_views = [v for v in views.values() if isinstance(v, str)]
    assert all(ESCAPED in v or "\\u003cimg" in "".join(srcdocs(v)) for v in html_views)


def test_plain_text_survives_each_escaping_layer():
    assert plotly_text(JANE) == "Jane \"J\" O'Doe &amp; &lt;b&gt;Co&lt;/b&gt;"  # no &quot;, &#x27;
    assert vis_text(JANE) == JANE  # canvas labels and innerText titles show it as written
    assert "href" not in vis_text('<a href="x">')  # pyvis's innerHTML popup is never chosen
    assert plotly_text("x" * 50, limit=10) == "x" * 9 + "…"


def test_pattern_graph_styles_named_and_unknown_apart():
    trace = simgrag_trace()
    page = pattern_graph(trace.stages["pattern"])
    nodes, edges = vis_data(page)
    assert [n["label"] for n in nodes] == [EVIL, "UNKNOWN person 1"]
    named, unknown = nodes
    assert named["color"]["background"] == node_colour(0)
    assert unknown["shapeProperties"]["borderDashes"]
    assert unknown["color"]["background"] == "#ffffff"
    assert [(e["from"], e["to"], e["label"]) for e in edges] == [("n0", "n1", "directed by")]
    assert "Phrases:" in page and ESCAPED in page
    assert "No pattern graph" in pattern_graph(None)


def test_pools_mark_the_candidates_the_subgraphs_used():
    trace = simgrag_trace()
    figure = pools_figure(trace.stages["pools"], trace.stages["subgraphs"])
    (points,) = figure.data
    assert len(points.x) == 4 and list(points.y).count(plotly_text(f"node 0: {EVIL}")) == 2
    used = [i for i, size in enumerate(points.marker.size) if size > 10]
    assert [points.hovertext[i].split("<br>")[0] for i in used] == [
        f"<b>{plotly_text(EVIL)}</b>", "<b>directed_by</b>"]
    assert points.marker.color[used[0]] == node_colour(0)
    assert points.marker.color[used[1]] == relation_colour(0)
    assert all("used by subgraph #1" in points.hovertext[i] for i in used)
    assert "1 UNKNOWN without a pool" in figure.layout.title.text


def test_search_tree_colours_outcomes_and_sums_up():
    trace = simgrag_trace()
    figure = search_tree_figure(trace.stages["search"], trace.stages["pattern"], hand_kg())
    (icicle,) = figure.data
    assert list(icicle.ids) == ["c0", "c0:0", "c0:1", "c0:2"]
    assert list(icicle.parents) == ["", "c0", "c0:0", "c0"]
    colours = list(icicle.marker.colors[1:])
    assert colours == [OUTCOMES[o][1] for o in ("expanded", "in_topk", "pruned_bound")]
    assert icicle.labels[2] == plotly_text(JANE) and icicle.labels[3] == "✂ Other"
    hover = icicle.hovertext[2]
    assert "depth 1" in hover and "partial GSD 0.100, bound 0.100" in hover
    assert "pattern edge 0 (directed by) → node 1 (UNKNOWN person 1)" in hover
    title = figure.layout.title.text
    assert "2 expanded, 1 pruned by bound" in title and "1 dropped by the cap" in title


def test_search_tree_without_records_says_how_to_get_them():
    trace = simgrag_trace()
    search = trace.stages["search"]
    search.components[0].tree = None
    figure = search_tree_figure(search, trace.stages["pattern"])
    assert "record_tree=True" in figure.layout.annotations[0].text


def test_search_tree_with_thousands_of_records_stays_quick():
    trace = simgrag_trace()
    tree = SearchTree(max_nodes=5000)
    root = tree.add(-1, 0, -1, 0, 0, -1, 0.0, 0.1)
    for i in range(4999):
        tree.add(root, 1, 0, 1, i % 4, 0, 0.1, 0.2, "pruned_bound" if i % 3 else "completed", 2)
    search = SearchRecord("optimized", [ComponentSearch(0, (0, 1), (0,), "complete", 5000, 9000,
                                                        0.5, 10, tree)])
    start = time.perf_counter()
    figure = search_tree_figure(search, trace.stages["pattern"], hand_kg())
    assert time.perf_counter() - start < 5 and len(figure.data[0].ids) == 5001


def test_subgraphs_show_rank_gsd_and_element_colours():
    nodes, edges = vis_data(subgraphs_graph(simgrag_trace().stages["subgraphs"]))
    by_label = {n["label"]: n for n in nodes}
    assert set(by_label) == {"#1 · GSD 0.100", EVIL, JANE}
    assert by_label[EVIL]["color"] == node_colour(0) and by_label[JANE]["color"] == node_colour(1)
    assert "pattern node 1: UNKNOWN person 1" in by_label[JANE]["title"]
    (triple_edge,) = [e for e in edges if e.get("label")]
    assert triple_edge["label"] == "directed_by" and triple_edge["color"] == relation_colour(0)
    assert "No subgraph" in subgraphs_graph([])


def test_evidence_graph_highlights_answers_and_sizes_by_score():
    page = evidence_graph([("A", "r", "B"), ("B", "s", "C"), ("A", "r", "B")], highlight=["C"],
                          scores={"A": 1.0, "C": 0.0})
    nodes, edges = vis_data(page)
    assert [n["label"] for n in nodes] == ["A", "B", "C"] and len(edges) == 2
    assert nodes[2]["color"] == ANSWER and nodes[0]["size"] > nodes[2]["size"]
    assert "score 1.000" in nodes[0]["title"] and "2 triples, 3 entities" in page


def test_prompt_view_marks_answers_and_evidence():
    page = prompt_view(simgrag_trace())
    assert page.count("<details") == 2 and "20 prompt + 10 completion tokens" in page
    assert f'<mark style="background:#f4b6b6">{html.escape(JANE)}</mark>' in page
    assert f'<mark style="background:#cfe3fb">{ESCAPED}</mark>' in page


def test_timing_figure_has_a_bar_per_stage_and_tokens_per_call_stage():
    figure = timing_figure(simgrag_trace())
    seconds, prompt, completion = figure.data
    assert list(seconds.y) == ["pattern", "pools", "search", "retrieval", "generation"]
    assert list(prompt.x) == [20, 30] and list(completion.x) == [10, 5]
    assert "1.02 s in total, 50 prompt + 15 completion tokens" in figure.layout.title.text


def test_kaping_and_linking_views():
    views = stage_views(kaping_trace())
    (bars,) = views["triples"].data
    assert len(bars.x) == 2 and bars.marker.color[0] != bars.marker.color[1]
    assert "hop 1" in bars.hovertext[0] and "top 1 of 2" in views["triples"].layout.title.text
    assert "<td style" in views["linking"] and ESCAPED in views["linking"]
    assert "Not in the KG" in views["linking"]


# ----------------------------------------------------------------- real traces, offline LLM
@pytest.fixture(scope="module")
def local_llm():
    from kgviz.llm import make_llm

    llm = make_llm("local")
    llm.load()
    return llm


@pytest.fixture(scope="module")
def demo_traces(local_llm, tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KGVIZ_CACHE", str(tmp_path_factory.mktemp("cache")))
        dataset = get_dataset("demo")
        context = ReasonerContext(dataset, local_llm)
        question = "who directed the movies that Tom Hanks acted in"
        traces = {method: make_reasoner(method, context, **config).run(question)
                  for method, config in (("simgrag", {"record_tree": True}), ("kaping", {}),
                                         ("llm-only", {}))}
        return traces, dataset.kg


@pytest.mark.slow
def test_simgrag_views_on_a_real_trace(demo_traces):
    traces, kg = demo_traces
    trace = traces["simgrag"]
    views = stage_views(trace, kg)
    assert list(views) == ["pattern", "pools", "search", "subgraphs", "prompt", "timing"]
    pattern = trace.stages["pattern"]
    nodes, _ = vis_data(views["pattern"])
    assert [n["label"] for n in nodes] == [n.text for n in pattern.nodes]
    pools = trace.stages["pools"]
    assert len(views["pools"].data[0].x) == sum(len(p.candidates)
                                                for p in [*pools.nodes, *pools.relations])
    part = trace.stages["search"].components[0]
    icicle = views["search"].data[0]
    assert len(icicle.ids) == len(part.tree) + 1
    assert list(icicle.marker.colors).count(OUTCOMES["in_topk"][1]) == part.tree.outcome.count(
        "in_topk") == len([s for s in trace.stages["subgraphs"] if s.component == 0])
    graph_labels = {n["label"] for n in vis_data(views["subgraphs"])[0]}
    assert {m.name for s in trace.stages["subgraphs"] for m in s.nodes} <= graph_labels
    assert all(f">{html.escape(a)}</mark>" in views["prompt"] for a in trace.answers)
    assert_no_raw_markup(views)


@pytest.mark.slow
def test_baseline_views_on_real_traces(demo_traces):
    traces, kg = demo_traces
    kaping = stage_views(traces["kaping"], kg)
    assert list(kaping) == ["linking", "triples", "evidence", "prompt", "timing"]
    ranking = traces["kaping"].stages["triples"]
    (bars,) = kaping["triples"].data
    assert len(bars.x) == min(30, len(ranking.candidates))
    evidence_labels = {n["label"] for n in vis_data(kaping["evidence"])[0]}
    assert {name for h, _, t in traces["kaping"].evidence for name in (h, t)} == evidence_labels
    assert list(stage_views(traces["llm-only"], kg)) == ["prompt", "timing"]


@pytest.fixture(scope="module")
def hostile_traces(local_llm, tmp_path_factory):
    """SimGRAG and KAPING run on a custom KG whose entity is named like an HTML tag."""
    folder = tmp_path_factory.mktemp("hostile")
    (folder / "kb.tsv").write_text(
        f"{EVIL}\tdirected_by\tJane Doe\n{EVIL}\tstarred_actors\tTom Hanks\n"
        "Forrest Gump\tdirected_by\tRobert Zemeckis\nForrest Gump\tstarred_actors\tTom Hanks\n")
    question = f"who directed {EVIL}"
    (folder / "dev.jsonl").write_text(json.dumps(
        {"question": question, "answers": ["Jane Doe"], "topic_entities": [EVIL]}) + "\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KGVIZ_CACHE", str(tmp_path_factory.mktemp("cache")))
        dataset = CustomDataset(folder)
        context = ReasonerContext(dataset, local_llm)
        traces = [make_reasoner(method, context, **config).run(question, [EVIL])
                  for method, config in (("simgrag", {"record_tree": True}), ("kaping", {}))]
        return traces, dataset.kg


@pytest.mark.slow
def test_hostile_entity_renders_as_text_in_real_traces(hostile_traces):
    traces, kg = hostile_traces
    for trace in traces:
        views = stage_views(trace, kg)
        assert_no_raw_markup(views)
        assert ESCAPED in views["prompt"]
    kaping = stage_views(traces[1], kg)
    assert any(n["label"] == EVIL for n in vis_data(kaping["evidence"])[0])
    assert any(EVIL in html.unescape(label) for label in kaping["triples"].data[0].y)
