"""Views: each one on hand-built records (fast) and on real traces (demo: retrieval only, or with
the offline LLM), and data text that looks like HTML rendered as text in every view."""

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
from kgviz.reasoners.base import ReasonerContext
from kgviz.reasoners.gnnrag.paths import walk
from kgviz.reasoners.gnnrag.records import (
    Augmentation,
    GNNRAGCandidates,
    NodeScore,
    NodeScores,
    PathRecord,
    SubgraphRecord,
)
from kgviz.reasoners.grag.describe import describe_graph
from kgviz.reasoners.grag.records import (
    Description,
    EgoRetrieval,
    GatedEdge,
    GatedNode,
    PrunedEgoGraph,
    RetrievedEgo,
)
from kgviz.reasoners.grag.views.description import MAX_PRUNED, description_view
from kgviz.reasoners.kaping.records import KapingTriple, TripleRanking
from kgviz.reasoners.linking import EntityLinking, LinkedEntity
from kgviz.reasoners.registry import make_reasoner
from kgviz.reasoners.simgrag.pools import ElementPool, PatternPools
from kgviz.reasoners.simgrag.query_pattern import QueryPattern, parse_pattern
from kgviz.reasoners.simgrag.records import ComponentSearch, SearchRecord, SimGRAGGeneration
from kgviz.reasoners.simgrag.search_tree import SearchTree
from kgviz.reasoners.simgrag.subgraphs import EdgeMatch, NodeMatch, Subgraph
from kgviz.reasoners.simgrag.views.pattern import pattern_graph
from kgviz.reasoners.simgrag.views.pools import NAMED, pools_figure
from kgviz.reasoners.simgrag.views.search_tree import (
    LEAF_PX,
    MAX_TREE_PX,
    OUTCOMES,
    apart,
    search_tree_figure,
    tally,
)
from kgviz.reasoners.simgrag.views.subgraphs import subgraphs_graph
from kgviz.reasoners.subgraphrag import records as subgraphrag_records
from kgviz.reasoners.subgraphrag.views.triple_scores import ROW_PX, triple_scores_figure
from kgviz.trace import LLMCall, Trace
from kgviz.viz import evidence_graph, prompt_view, stage_views, timing_figure
from kgviz.viz.escape import plotly_text, vis_text
from kgviz.viz.evidence_view import node_size
from kgviz.viz.focus import OPEN_TRIPLES
from kgviz.viz.kg_links import MAX_NEIGHBOURS
from kgviz.viz.marks import GOLD, STAR, TOPIC_BORDER, Marks
from kgviz.viz.palette import (
    ANSWER,
    NODE_COLOURS,
    RELATION_COLOURS,
    TOPIC,
    UNUSED,
    node_colour,
    relation_colour,
    score_colour,
)
from kgviz.viz.ranked_bars import KEPT, LEFT_OUT
from tests.stage_tabs import HAND_BUILT_SIMGRAG_STAGES, SHARED_TABS, SIMGRAG_TABS
from tests.viz.graph_pages import neighbour_data, srcdocs, vis_data, vis_options

EVIL = "<img src=x onerror=alert(1)>"
ESCAPED = html.escape(EVIL)
JANE = 'Jane "J" O\'Doe & <b>Co</b>'


# ----------------------------------------------------------------- helpers
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
    return KnowledgeGraph.from_triples(
        [
            (EVIL, "directed_by", JANE),
            (EVIL, "starred_actors", "Tom"),
            ("Other", "directed_by", JANE),
        ]
    )


def simgrag_trace() -> Trace:
    """A SimGRAG trace as the reasoner records it, named after the hostile entity."""
    pattern = parse_pattern(
        {
            "phrases": [f"{EVIL} was directed by someone"],
            "triples": [[EVIL, "directed by", "UNKNOWN person 1"]],
        },
        6,
    )
    pools = PatternPools(
        [
            ElementPool(
                "node", 0, EVIL, False, [Neighbour(0, EVIL, 0.0, 0), Neighbour(3, "Other", 0.5, 1)]
            ),
            ElementPool("node", 1, "UNKNOWN person 1", True, []),
        ],
        [
            ElementPool(
                "relation",
                0,
                "directed by",
                False,
                [Neighbour(0, "directed_by", 0.1, 0), Neighbour(1, "starred_actors", 0.9, 1)],
            )
        ],
        {},
    )
    tree = SearchTree(max_nodes=3)
    root = tree.add(-1, 0, -1, 0, 0, -1, 0.0, 0.1)
    tree.add(root, 1, 0, 1, 1, 0, 0.1, 0.1, "in_topk")
    tree.add(-1, 0, -1, 0, 3, -1, 0.5, 0.6, "pruned_bound", 1, 0.1)  # lost against 0.1
    tree.add(-1, 0, -1, 0, 2, -1, 0.7, 0.8, "pruned_bound")  # past the cap: dropped
    search = SearchRecord(
        "optimized", 3, [ComponentSearch(0, (0, 1), (0,), "complete", 2, 1, 0.002, 1, tree)]
    )
    triple = (EVIL, "directed_by", JANE)
    found = [
        Subgraph(
            1,
            (0,),
            0.1,
            [triple],
            [NodeMatch(0, EVIL, 0, EVIL, 0.0), NodeMatch(1, "UNKNOWN person 1", 1, JANE, 0.0)],
            [EdgeMatch(0, "directed by", 0, triple, 0.1)],
        )
    ]
    calls = [
        LLMCall(
            "pattern",
            [{"role": "user", "content": f"question: who directed {EVIL}"}],
            json.dumps({"triples": [[EVIL, "directed by", "UNKNOWN person 1"]]}),
            20,
            10,
            0.5,
            "local",
            "m",
        ),
        LLMCall(
            "generation",
            [{"role": "user", "content": f"graph 1: {triple}"}],
            f'{{"answer": ["{JANE}"]}}',
            30,
            5,
            0.4,
            "local",
            "m",
        ),
    ]
    return Trace(
        "simgrag",
        f"who directed {EVIL}",
        "hand",
        stages={
            "pattern": pattern,
            "pools": pools,
            "search": search,
            "subgraphs": found,
            "generation": SimGRAGGeneration("qa", "graph 1", [JANE]),
        },
        timings={
            "pattern": 0.5,
            "pools": 0.1,
            "search": 0.01,
            "retrieval": 0.61,
            "generation": 0.4,
            "total": 1.02,
        },
        llm_calls=calls,
        evidence=[triple],
        answer=f"{JANE}. graph 1",
        answers=[JANE],
    )


def two_component_search() -> tuple[SearchRecord, QueryPattern]:
    """A disconnected pattern searched in two components: the first from its named end (Jane) over
    two steps, the second from Other over one step."""
    pattern = parse_pattern(
        {
            "triples": [
                ["UNKNOWN movie 1", "directed by", JANE],
                ["UNKNOWN movie 1", "starred actors", "Tom"],
                ["Other", "directed by", "UNKNOWN person 1"],
            ]
        },
        6,
    )
    first = SearchTree(max_nodes=100)  # local nodes (movie, Jane, Tom), edges (0, 1)
    jane = first.add(-1, 0, -1, 1, 1, -1, 0.0, 0.2)
    movie = first.add(jane, 1, 0, 0, 0, 0, 0.1, 0.2)
    first.add(movie, 2, 1, 2, 2, 1, 0.2, 0.2, "in_topk")
    first.add(jane, 1, 0, 0, 3, 2, 0.1, 0.2, "no_candidate")
    second = SearchTree(max_nodes=100)  # local nodes (Other, person), edge (2,)
    other = second.add(-1, 0, -1, 0, 3, -1, 0.0, 0.1)
    second.add(other, 1, 0, 1, 1, 2, 0.1, 0.1, "in_topk")
    second.add(-1, 0, -1, 0, 0, -1, 0.6, 0.7, "pruned_bound", 3)
    search = SearchRecord(
        "optimized",
        1,
        [
            ComponentSearch(0, (0, 1, 2), (0, 1), "complete", 3, 0, 0.001, 1, first),
            ComponentSearch(1, (3, 4), (2,), "complete", 2, 3, 0.001, 1, second),
        ],
    )
    return search, pattern


def star_search(leaves: int) -> SearchRecord:
    """One start candidate with `leaves` children, alternately completed and pruned."""
    tree = SearchTree(max_nodes=leaves + 1)
    root = tree.add(-1, 0, -1, 0, 0, -1, 0.0, 0.1)
    for i in range(leaves):
        tree.add(root, 1, 0, 1, i % 4, 0, 0.1, 0.2, "pruned_bound" if i % 3 else "completed", 2)
    part = ComponentSearch(0, (0, 1), (0,), "complete", leaves + 1, 2 * leaves, 0.5, 3, tree)
    return SearchRecord("optimized", 3, [part])


def kaping_trace() -> Trace:
    ranked = [
        KapingTriple(EVIL, "directed_by", JANE, 1, 0.8, True),
        KapingTriple(EVIL, "starred_actors", "Tom", 1, 0.3, False),
    ]
    return Trace(
        "kaping",
        f"who directed {EVIL}",
        "hand",
        stages={
            "linking": EntityLinking(
                f"who directed {EVIL}", "given", [LinkedEntity(0, EVIL, EVIL, "given")], [EVIL]
            ),
            "triples": TripleRanking(ranked, 1, 0),
        },
        timings={"retrieval": 0.2, "generation": 0.3, "total": 0.5},
        llm_calls=[
            LLMCall(
                "generation", [{"role": "user", "content": EVIL}], JANE, 9, 3, 0.3, "local", "m"
            )
        ],
        evidence=[(EVIL, "directed_by", JANE)],
        answer=JANE,
        answers=[JANE],
    )


def hand_linking() -> EntityLinking:
    return EntityLinking(f"who directed {EVIL}", "given", [LinkedEntity(0, EVIL, EVIL, "given")])


def subgraphrag_trace() -> Trace:
    """SubgraphRAG's records: three candidates, the best one kept (top 1)."""
    ranked = [
        subgraphrag_records.SubgraphRAGTriple(EVIL, "directed_by", JANE, 1, 0.9, 0, True),
        subgraphrag_records.SubgraphRAGTriple(EVIL, "starred_actors", "Tom", 1, 0.4, 1, False),
        subgraphrag_records.SubgraphRAGTriple("Other", "directed_by", JANE, 2, 0.1, 2, False),
    ]
    return Trace(
        "subgraphrag",
        f"who directed {EVIL}",
        "hand",
        stages={
            "linking": hand_linking(),
            "candidates": subgraphrag_records.SubgraphRAGCandidates(3, 4, {1: 2, 2: 1}, 2),
            "scoring": subgraphrag_records.TripleScores(ranked, 1, "kgviz train subgraphrag"),
        },
        timings={"retrieval": 0.1, "total": 0.1},
        evidence=[(EVIL, "directed_by", JANE)],
    )


def gnnrag_trace() -> Trace:
    """GNN-RAG's records: Jane is the one candidate, reached by one path; Tom is not reached."""
    path = walk(EVIL, [(EVIL, "directed_by", JANE)])
    return Trace(
        "gnnrag",
        f"who directed {EVIL}",
        "hand",
        stages={
            "linking": hand_linking(),
            "subgraph": SubgraphRecord([EVIL], 3, 1000, 0.15, 4, 3, 4, 3),
            "gnn": NodeScores(
                [
                    NodeScore(JANE, 0.8, 0.1, False, True),
                    NodeScore(EVIL, 0.6, 0.5, True, False),
                    NodeScore("Tom", 0.3, 0.2, False, False),
                    NodeScore("Other", 0.01, 0.2, False, False),
                ],
                0.5,
                "kgviz train gnnrag",
            ),
            "candidates": GNNRAGCandidates([JANE], [0.8], 0.5, 0.8, 10),
            "paths": PathRecord([path], [path.text], ["Tom"], 2),
        },
        timings={"retrieval": 0.1, "total": 0.1},
        evidence=path.triples,
    )


def grag_trace() -> Trace:
    """GRAG's records: two ego-graphs; one edge kept, one soft-pruned, one over the budget."""
    kept = GatedEdge(EVIL, "directed_by", JANE, 0.9, 0.8, True)
    pruned = [
        PrunedEgoGraph(
            EVIL,
            20,
            [GatedNode(EVIL, 0.7, True), GatedNode(JANE, 0.6, True), GatedNode("Tom", 0.1, False)],
            [kept, GatedEdge(EVIL, "starred_actors", "Tom", 0.2, 0.3, False)],
        ),
        PrunedEgoGraph(
            "Other",
            20,
            [GatedNode("Other", 0.4, False), GatedNode(JANE, 0.6, True)],
            [GatedEdge("Other", "directed_by", JANE, 0.9, 0.6, False)],
        ),
    ]
    triple = (EVIL, "directed_by", JANE)
    egos = [RetrievedEgo(EVIL, 0.6, 3, 2), RetrievedEgo("Other", 0.4, 2, 1)]
    return Trace(
        "grag",
        f"who directed {EVIL}",
        "hand",
        stages={
            "linking": hand_linking(),
            "ego_graphs": EgoRetrieval(2, "topic entities (1 hop(s))", 3, egos),
            "pruning": pruned,
            "description": [Description(EVIL, 1, describe_graph([triple], EVIL))],
        },
        timings={"retrieval": 0.1, "total": 0.1},
        evidence=[triple],
    )


def test_stage_views_cover_every_stage_in_run_order():
    assert list(stage_views(simgrag_trace(), hand_kg())) == [
        *HAND_BUILT_SIMGRAG_STAGES,
        *SHARED_TABS,
    ]
    assert list(stage_views(kaping_trace())) == [
        "linking",
        "triples",
        "evidence",
        "prompt",
        "timing",
    ]


def test_scored_methods_have_a_view_for_every_record():
    """Records other views summarise draw nothing; the stage views that draw the evidence
    replace the generic evidence graph."""
    assert list(stage_views(subgraphrag_trace())) == ["linking", "scoring", "evidence", "timing"]
    assert list(stage_views(gnnrag_trace())) == ["linking", "gnn", "paths", "timing"]
    assert list(stage_views(grag_trace())) == [
        "linking",
        "ego_graphs",
        "pruning",
        "description",
        "timing",
    ]
    stance = grag_trace()  # the stance task prunes nothing: its graph is the generic evidence
    del stance.stages["linking"], stance.stages["pruning"]
    views = stage_views(stance)
    assert list(views) == ["ego_graphs", "description", "evidence", "timing"]
    assert "srcdoc" not in views["description"] and "srcdoc" in views["evidence"]


@pytest.mark.parametrize(
    "make", [simgrag_trace, kaping_trace, subgraphrag_trace, gnnrag_trace, grag_trace]
)
def test_hostile_names_render_as_text_in_every_view(make):
    views = stage_views(make(), hand_kg())
    assert_no_raw_markup(views)
    html_views = [v for v in views.values() if isinstance(v, str)]
    assert all(ESCAPED in v or "\\u003cimg" in "".join(srcdocs(v)) for v in html_views)


def test_plain_text_survives_each_escaping_layer():
    assert plotly_text(JANE) == 'Jane "J" O\'Doe &amp; &lt;b&gt;Co&lt;/b&gt;'  # no &quot;, &#x27;
    assert vis_text(JANE) == JANE  # canvas labels and innerText titles show it as written
    assert "href" not in vis_text('<a href="x">')  # pyvis's innerHTML popup is never chosen
    assert plotly_text("x" * 50, limit=10) == "x" * 9 + "…"


def legend_colours(page: str) -> set[str]:
    """The swatch colours of a view's legends (outside its iframe)."""
    outside = re.sub(r'srcdoc="[^"]*"', "", page)
    return set(re.findall(r"(?:background:|dashed )(#[0-9a-f]{6})", outside))


def drawn_colours(page: str) -> set[str]:
    """Every colour a graph paints its nodes (fill and border) and edges in, but the captions
    heading its sections (their text says what they are)."""
    nodes, edges = vis_data(page)
    found = set()
    for item in [*(n for n in nodes if not n["id"].startswith("section:")), *edges]:
        colour = item.get("color")
        parts = colour.values() if isinstance(colour, dict) else [colour]
        found.update(part for part in parts if isinstance(part, str))
    return found - {"#ffffff"}


@pytest.mark.parametrize(
    "make, stage",
    [(simgrag_trace, "pattern"), (simgrag_trace, "subgraphs"), (kaping_trace, "evidence")],
)
def test_every_colour_of_a_graph_is_in_its_legend(make, stage):
    trace = make()
    trace.gold, trace.topics = [JANE], [EVIL]
    page = stage_views(trace, hand_kg())[stage]
    assert drawn_colours(page) <= legend_colours(page)


def test_no_named_pattern_element_takes_the_unknown_grey():
    """A pattern's relations and nodes take palette colours, none of them grey (which means
    UNKNOWN, unused or neighbouring): seven relations, the third among them."""

    def saturation(colour: str) -> float:
        red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
        return (max(red, green, blue) - min(red, green, blue)) / max(red, green, blue, 1)

    assert all(saturation(c) > 0.3 for c in [*NODE_COLOURS, *RELATION_COLOURS])
    triples = [[f"film {i}", f"relation {i}", f"person {i}"] for i in range(6)]
    page = pattern_graph(parse_pattern({"triples": triples}, 6))
    assert all(edge["color"] != UNUSED for edge in vis_data(page)[1])
    assert "relation 2: relation 2" in page and relation_colour(2) in legend_colours(page)


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
    node_row, relation_row = figure.data  # a row (trace) per named element, nearest first
    assert list(node_row.y) == [0, 0] and list(relation_row.y) == [1, 1]
    assert list(figure.layout.yaxis.ticktext) == [
        plotly_text(f"node 0: {EVIL}"),
        "relation 0: directed by",
    ]
    for row, name, colour in (
        (node_row, plotly_text(EVIL), node_colour(0)),
        (relation_row, "directed_by", relation_colour(0)),
    ):
        used = [i for i, c in enumerate(row.marker.color) if c != UNUSED]
        assert [row.hovertext[i].split("<br>")[0] for i in used] == [f"<b>{name}</b>"]
        assert row.marker.color[used[0]] == colour and "used by subgraph #1" in row.hovertext[0]
    names = [(a.text, a.y) for a in figure.layout.annotations]  # every candidate of a small pool
    assert names == [
        (plotly_text(EVIL), 0),
        ("Other", 0),
        ("directed_by", 1),
        ("starred_actors", 1),
    ]
    assert "1 UNKNOWN without a pool" in figure.layout.title.text


def test_pools_name_their_nearest_candidates_on_lanes_of_their_own():
    """A pool of 30 candidates at nearly one distance: its nearest NAMED and the one a subgraph
    used are named, each on its own lane above the row (no two names share a height), and the
    row is tall enough for them; the others are unnamed dots."""
    trace = simgrag_trace()
    crowd = [Neighbour(10 + i, f"actor {i}", 0.5 + i / 1000, i) for i in range(30)]
    crowd[20] = Neighbour(0, EVIL, 0.52, 20)  # the entity the subgraph used
    pools = trace.stages["pools"]
    pools.nodes[0] = ElementPool("node", 0, EVIL, False, crowd)
    figure = pools_figure(pools, trace.stages["subgraphs"])
    row = [a for a in figure.layout.annotations if a.y == 0]
    assert [a.text for a in row] == [*(f"actor {i}" for i in range(NAMED)), plotly_text(EVIL)]
    heights = [a.ay for a in row]
    assert len(set(heights)) == len(heights) and all(a.ax == 0 and a.showarrow for a in row)
    lowest_lane = -min(heights)  # the highest name stands within its row's share of the plot
    plot_px = figure.layout.height - figure.layout.margin.t - figure.layout.margin.b
    assert lowest_lane < plot_px / len(figure.data)


def test_search_tree_colours_outcomes_and_sums_up():
    trace = simgrag_trace()
    figure = search_tree_figure(trace.stages["search"], trace.stages["pattern"], hand_kg())
    (bars,) = figure.data
    assert list(bars.base) == [0, 1, 0]  # a column per depth, no component root before them
    assert list(bars.y) == [0.5, 0.5, 1.5] and list(bars.width) == [1, 1, 1]
    colours = list(bars.marker.color)
    assert colours == [OUTCOMES[o][1] for o in ("expanded", "in_topk", "pruned_bound")]
    assert bars.text[1] == plotly_text(JANE) and bars.text[2] == "✂ Other · 0.600 &gt; 0.100"
    assert (
        "pruned: bound 0.600 &gt; 0.100, the k-th best GSD found by then (k = 3)"
        in (bars.hovertext[2])
    )
    hover = bars.hovertext[1]
    assert "depth 1" in hover and "partial GSD 0.100, bound 0.100" in hover
    assert "pattern edge 0 (directed by) → node 1 (UNKNOWN person 1)" in hover
    title = figure.layout.title.text
    assert "3 of 4 records drawn (capped by max_tree_nodes)" in title
    assert "1 expanded" in title and "1 pruned by bound (1 candidates)" in title
    (line,) = [a.text for a in figure.layout.annotations]
    assert "<b>component 0</b>: complete in 2 ms, 1 match(es); 3 of 4 records drawn" in line


def test_search_tree_tells_apart_a_bound_and_a_kth_best_that_round_alike():
    """A bound that lost by less than the shown decimals gets as many more as it takes."""
    assert apart(0.6, 0.1) == ("0.600", "0.100")
    assert apart(1.15234, 1.15191) == ("1.1523", "1.1519")
    assert apart(1.0 + 2e-9, 1.0) == ("1.000000002", "1.000000000")


def test_search_tree_stars_and_outlines_gold_answers():
    trace = simgrag_trace()
    trace.gold = [JANE]
    figure = stage_views(trace, hand_kg())["search"]
    (bars,) = figure.data
    assert [text.startswith(STAR) for text in bars.text] == [False, True, False]
    assert bars.text[1] == STAR + plotly_text(JANE) and STAR in bars.hovertext[1]
    assert list(bars.marker.line.color) == ["#ffffff", GOLD, "#ffffff"]
    assert list(bars.marker.line.width) == [0.5, 3, 0.5]
    assert "gold answer (gold outline): 1 step(s)" in figure.layout.title.text
    trace.gold = ["Nobody"]
    assert (
        "no drawn step reaches a gold answer"
        in stage_views(trace, hand_kg())["search"].layout.title.text
    )
    trace.gold = []
    plain = stage_views(trace, hand_kg())["search"]
    assert "gold" not in plain.layout.title.text and not any(STAR in t for t in plain.data[0].text)


def folded_search() -> tuple[SearchRecord, QueryPattern]:
    """From Jane (local node 1) the search maps movies (node 0) and then needs a
    "starred actors" edge from each to a candidate of Tom (node 2): three movies in a row find
    none, one finds Tom, a last one finds none."""
    _, pattern = two_component_search()
    tree = SearchTree(max_nodes=100)
    tree.steps = [(0, 1, 0), (1, 0, 2)]
    jane = tree.add(-1, 0, -1, 1, 1, -1, 0.0, 0.2)
    for entity in (0, 3, 2):
        tree.add(jane, 1, 0, 0, entity, 0, 0.1, 0.2, "no_candidate")
    movie = tree.add(jane, 1, 0, 0, 0, 0, 0.1, 0.2)
    tree.add(movie, 2, 1, 2, 2, 1, 0.2, 0.2, "in_topk")
    tree.add(jane, 1, 0, 0, 3, 2, 0.1, 0.2, "no_candidate")
    part = ComponentSearch(0, (0, 1, 2), (0, 1), "complete", 6, 0, 0.001, 1, tree)
    return SearchRecord("optimized", 1, [part]), pattern


def test_runs_of_no_candidate_fold_into_one_row_that_says_why():
    search, pattern = folded_search()
    figure = search_tree_figure(search, pattern, hand_kg())
    (bars,) = figure.data  # Jane, the folded run, the movie, its match, the last dead end
    assert list(bars.base) == [0, 1, 1, 2, 1] and list(bars.width) == [3, 1, 1, 1, 1]
    assert bars.text[1] == "✗ 3: no “starred actors” edge to a “Tom”"
    assert (
        "no candidate: no KG edge with a relation of the pool of “starred actors” joins each of "
        "them to a candidate of “Tom”"
    ) in bars.hovertext[1]
    assert f"{ESCAPED}, Other, Tom" in bars.hovertext[1]
    assert bars.text[4] == "Other" and "joins Other to a candidate of “Tom”" in bars.hovertext[4]
    assert tally([search.components[0].tree]).records["no_candidate"] == 4
    (line,) = [a.text for a in figure.layout.annotations]
    assert "4 found no candidate for (UNKNOWN movie 1, starred actors, Tom)" in line
    search.components[0].tree.steps = []  # saved before trees kept their search order
    older = search_tree_figure(search, pattern, hand_kg()).data[0]
    assert older.text[1] == "✗ 3 no candidate" and "no candidate:" not in older.hovertext[1]


def test_search_tree_heads_each_depth_with_the_triple_it_binds():
    """The search starts from the named end (Jane) and walks the pattern backwards; each column's
    header names its pattern triple, the node its boxes map in bold."""
    search, pattern = two_component_search()
    figure = search_tree_figure(search, pattern, hand_kg())
    first, second = figure.data
    jane = plotly_text(JANE, 28)
    assert figure.layout.xaxis.ticktext == (
        f"depth 0<br>start: <b>{jane}</b>",
        f"depth 1<br>(<b>UNKNOWN movie 1</b>,<br>directed by,<br>{jane})",
        "depth 2<br>(UNKNOWN movie 1,<br>starred actors,<br><b>Tom</b>)",
    )
    assert figure.layout.xaxis2.ticktext == (
        "depth 0<br>start: <b>Other</b>",
        "depth 1<br>(Other,<br>directed by,<br><b>UNKNOWN person 1</b>)",
    )
    assert list(figure.layout.xaxis.range) == [0, 3] and list(figure.layout.xaxis2.range) == [0, 2]
    assert (first.xaxis, first.yaxis, second.xaxis, second.yaxis) == ("x", "y", "x2", "y2")
    top, bottom = figure.layout.yaxis.domain, figure.layout.yaxis2.domain
    assert bottom[1] < top[0]  # one component under the other, each with the full width


def test_search_tree_counts_come_from_the_drawn_records():
    """The key sums the components' lines, and both count the boxes drawn."""
    search, pattern = two_component_search()
    figure = search_tree_figure(search, pattern, hand_kg())
    counts = tally(part.tree for part in search.components)
    assert counts.records == {
        "expanded": 3,
        "no_candidate": 1,
        "pruned_bound": 1,
        "completed": 0,
        "in_topk": 2,
    }
    title = figure.layout.title.text
    assert "7 records drawn" in title and "1 pruned by bound (3 candidates)" in title
    lines = [a.text for a in figure.layout.annotations]
    for outcome in ("expanded", "no candidate", "pruned by bound", "completed", "in top-k"):
        pattern_ = rf"(\d+) {outcome}"
        (total,) = re.findall(pattern_, title)
        assert int(total) == sum(int(n) for line in lines for n in re.findall(pattern_, line))
    assert sum(len(bars.y) for bars in figure.data) == counts.drawn == 7


def test_search_tree_grows_with_its_leaves_and_hides_labels_too_small_to_read():
    pattern = simgrag_trace().stages["pattern"]
    small, large = (search_tree_figure(star_search(leaves), pattern) for leaves in (10, 60))
    assert large.layout.height - small.layout.height == LEAF_PX * 50
    assert large.layout.uniformtext.mode == "hide" and large.layout.uniformtext.minsize >= 10
    (bars,) = large.data
    assert bars.textangle == 0 and bars.textposition == "inside"
    assert list(large.layout.yaxis.range) == [60, 0]


def test_search_tree_without_records_says_how_to_get_them():
    trace = simgrag_trace()
    search = trace.stages["search"]
    search.components[0].tree = None
    figure = search_tree_figure(search, trace.stages["pattern"])
    assert not figure.data and "record_tree=True" in figure.layout.annotations[-1].text
    assert "2 partial mappings visited, 1 pruned by bound" in figure.layout.annotations[0].text


def test_search_tree_with_thousands_of_records_stays_quick():
    trace = simgrag_trace()
    start = time.perf_counter()
    figure = search_tree_figure(star_search(4999), trace.stages["pattern"], hand_kg())
    assert time.perf_counter() - start < 5 and len(figure.data[0].y) == 5000
    assert figure.layout.yaxis.domain[1] - figure.layout.yaxis.domain[0] == pytest.approx(
        MAX_TREE_PX / (figure.layout.height - figure.layout.margin.t - figure.layout.margin.b),
        abs=0.01,
    )


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
    page = evidence_graph(
        [("A", "r", "B"), ("B", "s", "C"), ("A", "r", "B")],
        highlight=["C"],
        scores={"A": 1.0, "C": 0.0},
    )
    nodes, edges = vis_data(page)
    assert [n["label"] for n in nodes] == ["A", "B", "C"] and len(edges) == 2
    assert nodes[2]["color"] == ANSWER and nodes[0]["size"] > nodes[2]["size"]
    assert "score 1.000" in nodes[0]["title"] and "2 triples, 3 entities" in page


SCRIPT_END = "</script><img src=x onerror=alert(1)>"


def hub_kg() -> KnowledgeGraph:
    """A hub starring 30 actors (one named like a closing script tag) and directing 2 films."""
    return KnowledgeGraph.from_triples(
        [("Hub", "starred_actors", SCRIPT_END)]
        + [("Hub", "starred_actors", f"actor {i}") for i in range(29)]
        + [("Hub", "directed_by", JANE)]
        + [("Film", "directed_by", "Hub"), ("Film 2", "directed_by", "Hub")]
    )


def test_graph_nodes_hover_their_kg_degree_and_relations():
    page = evidence_graph([("Hub", "directed_by", JANE)], kg=hub_kg())
    nodes = {node["label"]: node for node in vis_data(page)[0]}
    assert "degree 33: starred_actors 30, directed_by 3" in nodes["Hub"]["title"]
    assert "degree 1: directed_by 1" in nodes[JANE]["title"]
    assert (
        f"show {MAX_NEIGHBOURS} KG triple(s) (+{33 - MAX_NEIGHBOURS} more)" in nodes["Hub"]["title"]
    )
    bare = evidence_graph([("Hub", "directed_by", JANE)])
    assert not any("degree" in node["title"] for node in vis_data(bare)[0])
    assert neighbour_data(bare) == {} and "kgvizToggle" not in srcdocs(bare)[0]


def test_subgraph_nodes_hover_their_pool_rank_and_kg_degree():
    page = stage_views(simgrag_trace(), hand_kg())["subgraphs"]
    nodes = {node["label"]: node for node in vis_data(page)[0]}
    assert "candidate-pool rank 1 of 2, pool distance 0.000" in nodes[EVIL]["title"]
    assert "degree 2: directed_by 1, starred_actors 1" in nodes[EVIL]["title"]
    assert "UNKNOWN node: no candidate pool" in nodes[JANE]["title"]
    hoods = neighbour_data(page)  # neighbours stay inside their subgraph
    assert [n["id"] for n in hoods[f"s1:{EVIL}"]["nodes"]] == ["s1:Tom"]
    assert [n["id"] for n in hoods[f"s1:{JANE}"]["nodes"]] == ["s1:Other"]


def test_kg_neighbourhoods_are_embedded_capped_and_stay_text():
    """Each drawn entity carries at most MAX_NEIGHBOURS KG triples, taking its relations in
    turn, without what is drawn already; hostile names stay JSON strings in the script."""
    page = evidence_graph([("Hub", "directed_by", JANE)], kg=hub_kg())
    hub = neighbour_data(page)["Hub"]
    assert len(hub["edges"]) == MAX_NEIGHBOURS - 1  # the drawn Hub -> Jane left out
    relations = [edge["label"] for edge in hub["edges"]]
    assert relations.count("directed_by") == 2  # each relation in turn, not 25 starred first
    assert ("Film", "Hub") in {(edge["from"], edge["to"]) for edge in hub["edges"]}
    names = {node["id"] for node in hub["nodes"]}
    assert "Hub" not in names and JANE not in names and len(names) == len(hub["edges"])
    assert all(node["color"]["background"] == "#e3e3e3" for node in hub["nodes"])
    assert "click an entity to show them" in page
    hostile = evidence_graph([("Film", "directed_by", "Hub")], kg=hub_kg())
    assert_no_raw_markup({"hostile": hostile})
    (doc,) = srcdocs(hostile)
    script = re.search(r"var kgvizNeighbours = (.*?);</script>", doc).group(1)
    assert not set("<>&") & set(script) and "\\u003c/script\\u003e\\u003cimg" in script
    assert SCRIPT_END in {node["label"] for node in neighbour_data(hostile)["Hub"]["nodes"]}


def test_score_filter_only_when_edges_have_scores():
    kg = hand_kg()
    scored = stage_views(subgraphrag_trace(), kg)["evidence"]
    assert 'id="kgviz-min-score"' in srcdocs(scored)[0]
    assert [edge["score"] for edge in vis_data(scored)[1]] == [0.9]
    assert 'id="kgviz-min-score"' in srcdocs(stage_views(grag_trace(), kg)["description"])[0]
    for unscored in (
        evidence_graph([("A", "r", "B")]),
        stage_views(gnnrag_trace(), kg)["paths"],
        stage_views(simgrag_trace(), kg)["subgraphs"],
    ):
        assert 'id="kgviz-min-score"' not in srcdocs(unscored)[0]
        assert all("score" not in edge for edge in vis_data(unscored)[1])


def test_columns_make_room_for_the_edge_labels_between_them():
    """Nothing moves once drawn (no physics): every node has its place, and a long edge label
    (not cut to its first letter) pushes the next column further right."""
    short = vis_data(evidence_graph([("A", "r", "B")]))[0]
    long = vis_data(evidence_graph([("A", "acted_in_the_film_of", "B")]))[0]
    assert vis_options(evidence_graph([("A", "r", "B")]))["physics"] == {"enabled": False}
    gap = {len(nodes): nodes[1]["x"] - nodes[0]["x"] for nodes in (short, long)}
    assert long[1]["x"] - long[0]["x"] > short[1]["x"] - short[0]["x"] + 100
    assert all(isinstance(node["y"], float) for node in short + long) and gap


def test_prompt_view_marks_answers_and_evidence():
    page = prompt_view(simgrag_trace())
    assert page.count("<details") == 2 and "20 prompt + 10 completion tokens" in page
    assert f'<mark style="background:#f4b6b6">{html.escape(JANE)}</mark>' in page
    assert f'<mark style="background:#cfe3fb">{ESCAPED}</mark>' in page


def test_timing_figure_has_a_bar_per_stage_and_tokens_per_call_stage():
    figure = timing_figure(simgrag_trace())
    seconds, prompt, completion = figure.data
    assert list(seconds.y) == ["retrieval", "└ pattern", "└ pools", "└ search", "generation"]
    assert list(prompt.x) == [20, 30] and list(completion.x) == [10, 5]
    assert "1.02 s in total, 50 prompt + 15 completion tokens" in figure.layout.title.text


def test_timing_shows_what_cached_replies_first_cost():
    trace = simgrag_trace()
    trace.llm_calls[0].cached = True  # the pattern call, replayed
    _, cached, *_ = timing_figure(trace).data
    first = dict(zip(cached.y, cached.x))
    assert first["└ pattern"] == first["retrieval"] == trace.llm_calls[0].latency_s
    assert first["generation"] == 0.0
    assert "of cached replies at their first cost" in timing_figure(trace).layout.title.text


def test_kaping_and_linking_views():
    views = stage_views(kaping_trace())
    (bars,) = views["triples"].data
    assert len(bars.x) == 2 and bars.marker.color[0] != bars.marker.color[1]
    assert "hop 1" in bars.hovertext[0] and "top 1 of 2" in views["triples"].layout.title.text
    assert "<td style" in views["linking"] and ESCAPED in views["linking"]
    assert "Not in the KG" in views["linking"]


def test_triple_scores_show_the_cut_and_the_ranked_triples():
    figure = triple_scores_figure(
        subgraphrag_trace().stages["scoring"], subgraphrag_trace().stages["candidates"]
    )
    kept, left_out, table = figure.data
    assert list(kept.x) == [0.9] and list(left_out.x) == [0.4, 0.1]
    (cut,) = figure.layout.shapes
    assert cut.x0 == 0.9 and "top-1 cut: score ≥ 0.9000" in figure.layout.annotations[0].text
    rows = list(zip(*table.cells.values))
    assert rows[0] == ("1", "0.9000", ESCAPED, "directed_by", plotly_text(JANE), "✓")
    assert [row[5] for row in rows] == ["✓", "", ""]
    assert table.cells.fill.color[0] == ["#deebf7", "#ffffff", "#ffffff"]
    title = figure.layout.title.text
    assert "top 1 of 3 candidate triples" in title
    assert "3 candidates over 4 entities (2 at hop 1, 1 at hop 2)" in title


def test_triple_table_scrolls_through_every_rank():
    ranked = [
        subgraphrag_records.SubgraphRAGTriple(f"e{i}", "r", "t", 1, 1 - i / 50, i, i < 35)
        for i in range(40)
    ]
    figure = triple_scores_figure(subgraphrag_records.TripleScores(ranked, 35, ""), rows=30)
    table = figure.data[2]
    assert list(table.cells.values[0]) == [str(i) for i in range(1, 41)]
    assert table.cells.fill.color[0] == ["#deebf7"] * 35 + ["#ffffff"] * 5
    plot_px = figure.layout.height - figure.layout.margin.t - figure.layout.margin.b
    shown_px = (table.domain.y[1] - table.domain.y[0]) * plot_px
    assert shown_px == pytest.approx(ROW_PX * 31, abs=3)  # the header and 30 rows in view
    assert "the table scrolls through all 40" in figure.layout.title.text


def test_triple_table_rows_leave_room_under_the_text():
    """plotly's default 20 px rows let the next row's fill cut 12 px text's underscores."""
    table = triple_scores_figure(subgraphrag_trace().stages["scoring"]).data[2]
    assert table.cells.height == table.header.height == ROW_PX
    assert table.cells.height - table.cells.font.size >= 10
    assert "starred_actors" in table.cells.values[3]


def test_scored_evidence_edges_take_the_score_colour_and_width():
    nodes, edges = vis_data(stage_views(subgraphrag_trace())["evidence"])
    (edge,) = edges
    assert edge["color"] == score_colour(0.9) and edge["width"] == pytest.approx(4.6)
    assert "score 0.900" in edge["title"] and {n["label"] for n in nodes} == {EVIL, JANE}


def test_node_scores_rank_candidates_without_topic_entities():
    figure = stage_views(gnnrag_trace())["gnn"]
    (bars,) = figure.data
    assert list(bars.x) == [0.8, 0.3, 0.01]
    assert list(bars.y) == [f"1. {plotly_text(JANE)}", "2. Tom", "3. Other"]
    assert list(bars.marker.color) == [KEPT, LEFT_OUT, LEFT_OUT]
    assert "PageRank 0.1000<br>answer candidate" in bars.hovertext[0]
    title = figure.layout.title.text
    assert (
        "1 answer candidate(s) of 3 entities, covering 80% of the answer probability "
        "(taken until 50%)"
    ) in title
    assert "subgraph: 4 of 4 nodes within 3 hops" in title


def test_paths_graph_sizes_entities_by_probability_and_rings_candidates():
    page = stage_views(gnnrag_trace())["paths"]
    nodes, edges = vis_data(page)
    by_label = {n["label"]: n for n in nodes}
    assert by_label[EVIL]["shape"] == "box" and by_label[EVIL]["color"]["background"] == TOPIC
    jane = by_label[JANE]
    assert jane["color"] == {"background": score_colour(0.8), "border": ANSWER}
    assert jane["size"] == node_size(0.8) and "answer probability 0.800" in jane["title"]
    assert [(e["from"], e["to"]) for e in edges] == [(EVIL, JANE)]
    assert f"<li>{ESCAPED} → directed by → {html.escape(JANE)}</li>" in page
    assert "no path within the hops to Tom; 2 path(s) left out by max_paths" in page


def test_paths_graph_is_layered_from_topic_entities_to_candidates():
    """Left to right, each entity at its step along its path, whichever way a triple points."""
    trace = gnnrag_trace()
    path = walk(EVIL, [(EVIL, "directed_by", JANE), ("Other", "directed_by", JANE)])
    trace.stages["paths"] = PathRecord([path], [path.text], [], 0)
    page = stage_views(trace)["paths"]
    nodes, edges = vis_data(page)
    x = {n["label"]: n["x"] for n in nodes}
    assert x[EVIL] < x[JANE] < x["Other"]
    assert [(e["from"], e["to"]) for e in edges] == [(EVIL, JANE), ("Other", JANE)]


def test_augmented_paths_get_their_own_view_and_no_generic_evidence():
    trace = gnnrag_trace()
    added = walk("Other", [("Other", "directed_by", JANE)], "kaping")
    trace.stages["augmentation"] = Augmentation("kaping", 2, 2, [added], [added.text], 0.1)
    views = stage_views(trace)
    assert list(views) == ["linking", "gnn", "paths", "augmentation", "timing"]
    nodes, _ = vis_data(views["augmentation"])
    assert {n["label"] for n in nodes} == {"Other", JANE}
    assert "kaping: 2 evidence triples as 2 paths, 1 not among the GNN" in views["augmentation"]


def test_ego_ranking_and_gates_cut_by_the_budget():
    views = stage_views(grag_trace())
    (bars,) = views["ego_graphs"].data
    assert list(bars.x) == [0.6, 0.4] and "3 nodes, 2 edges" in bars.hovertext[0]
    assert "top 2 of 3 ego-graphs" in views["ego_graphs"].layout.title.text
    figure = views["pruning"]
    kept, pruned = figure.data
    assert list(kept.x) == [0.8] and sorted(pruned.x) == [0.3, 0.6]
    assert "outside the description budget" in pruned.hovertext[1]
    assert figure.layout.shapes[0].x0 == 0.8  # the lowest kept score: where the budget cut
    assert list(figure.layout.yaxis.ticktext) == [
        f"#1 {ESCAPED} · similarity 0.600<br>1 kept, 1 soft-pruned",
        "#2 Other · similarity 0.400<br>0 kept, 1 soft-pruned",
    ]
    assert "1 of 3 distinct edges kept, 2 soft-pruned" in figure.layout.title.text
    assert "while they fit 20 tokens" in figure.layout.title.text


def test_description_draws_the_kept_ego_graphs_with_pruned_edges_faded():
    trace = grag_trace()
    page = stage_views(trace)["description"]
    nodes, edges = vis_data(page)
    (header,) = [n for n in nodes if n["id"].startswith("section:")]  # "Other" kept no edge
    assert header["label"] == f"#1 {EVIL}" and header["section"] == "e1"
    by_label = {n["label"]: n for n in nodes if n is not header}
    assert set(by_label) == {EVIL, JANE, "Tom"}
    assert all(n["section"] == "e1" and n["id"] == f"e1:{n['label']}" for n in by_label.values())
    assert by_label[EVIL]["shape"] == "box" and "centre of ego-graph #1" in by_label[EVIL]["title"]
    assert (
        by_label["Tom"]["color"] == score_colour(0.1)
        and "in no described triple" in (by_label["Tom"]["title"])
    )
    kept, faded = edges
    assert kept["color"] == score_colour(0.8) and not kept.get("dashes")
    assert faded["dashes"] and faded["color"] == UNUSED and "pruned" in faded["title"]
    assert "1 ego-graph(s) kept no edge" in page
    assert f"Graph 1, around {ESCAPED}: 1 triple(s)" in page
    assert html.escape(trace.stages["description"][0].text) in page
    fewer = description_view(trace.stages["description"], trace.stages["pruning"], max_pruned=0)
    assert len(vis_data(fewer)[1]) == 1 and "1 more soft-pruned triples not drawn" in fewer


# ----------------------------------------------------------------- real traces, retrieval only
SCORED_METHODS = {"subgraphrag": {"top_k": 20}, "gnnrag": {}, "grag": {}}


@pytest.fixture(scope="module")
def retrieved_traces(tmp_path_factory):
    """SubgraphRAG (top 20, so the cut falls inside the candidates), GNN-RAG and GRAG on the demo
    KG, retrieval only (no LLM)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KGVIZ_CACHE", str(tmp_path_factory.mktemp("cache")))
        dataset = get_dataset("demo")
        context = ReasonerContext(dataset, llm=None)
        question = "who directed the movies that Tom Hanks acted in"
        traces = {
            method: make_reasoner(method, context, **config).retrieve_only(question, ["Tom Hanks"])
            for method, config in SCORED_METHODS.items()
        }
        return traces, dataset.kg


def test_scored_views_render_each_stage_as_it_finishes(retrieved_traces):
    """As the app streams them: every prefix of the stages renders, with no "no view" note."""
    traces, kg = retrieved_traces
    for trace in traces.values():
        stages = list(trace.stages.items())
        for end in range(1, len(stages) + 1):
            partial = Trace(
                trace.method,
                trace.question,
                stages=dict(stages[:end]),
                evidence=trace.evidence if end == len(stages) else [],
            )
            views = stage_views(partial, kg)
            assert not any(isinstance(v, str) and "no view for" in v for v in views.values())
    assert list(stage_views(traces["subgraphrag"], kg)) == [
        "linking",
        "grounding",
        "scoring",
        "evidence",
        "timing",
    ]
    assert list(stage_views(traces["gnnrag"], kg)) == [
        "linking",
        "grounding",
        "gnn",
        "paths",
        "timing",
    ]
    assert list(stage_views(traces["grag"], kg)) == [
        "linking",
        "grounding",
        "ego_graphs",
        "pruning",
        "description",
        "timing",
    ]


def test_triple_scores_view_on_a_real_trace(retrieved_traces):
    traces, kg = retrieved_traces
    trace = traces["subgraphrag"]
    scores = trace.stages["scoring"]
    views = stage_views(trace, kg)
    kept, left_out, table = views["scoring"].data
    assert len(kept.x) == scores.top_k == 20 and len(left_out.x) == len(scores.triples) - 20
    assert views["scoring"].layout.shapes[0].x0 == scores.triples[19].score
    best = scores.triples[0]
    assert next(zip(*table.cells.values)) == (
        "1",
        f"{best.score:.4f}",
        best.head,
        best.relation,
        best.tail,
        "✓",
    )
    _, edges = vis_data(views["evidence"])
    assert len(edges) == len(trace.evidence) == 20
    assert f"score {best.score:.3f}" in edges[0]["title"]


def test_node_scores_and_paths_views_on_a_real_trace(retrieved_traces):
    traces, kg = retrieved_traces
    trace = traces["gnnrag"]
    views = stage_views(trace, kg)
    scores, candidates = trace.stages["gnn"], trace.stages["candidates"]
    (bars,) = views["gnn"].data
    best = next(node for node in scores.nodes if not node.topic)
    assert bars.x[0] == best.probability and bars.y[0] == f"1. {plotly_text(best.name)}"
    assert list(bars.marker.color).count(KEPT) == len(candidates.names)
    nodes, edges = vis_data(views["paths"])
    ringed = {
        n["label"] for n in nodes if isinstance(n["color"], dict) and n["color"]["border"] == ANSWER
    }
    reached = {path.end for path in trace.stages["paths"].paths}
    assert ringed == reached <= set(candidates.names)
    assert len(edges) == len(trace.evidence)
    assert views["paths"].count("<li>") == len(trace.stages["paths"].lines)


def test_ego_graph_views_on_a_real_trace(retrieved_traces):
    traces, kg = retrieved_traces
    trace = traces["grag"]
    views = stage_views(trace, kg)
    pruned = trace.stages["pruning"]
    edges = {(e.head, e.relation, e.tail): e for graph in pruned for e in graph.edges}
    soft_pruned = sum(not e.kept for e in edges.values())
    assert (
        f"{len(edges) - soft_pruned} of {len(edges)} distinct edges kept, {soft_pruned} "
        "soft-pruned" in views["pruning"].layout.title.text
    )
    kept_points, pruned_points = views["pruning"].data
    assert len(kept_points.x) + len(pruned_points.x) == sum(len(g.edges) for g in pruned)
    nodes, drawn = vis_data(views["description"])

    def triples(dashed: bool) -> set[tuple[str, str, str]]:
        """The triples of the drawn edges (in any ego-graph's section), kept or soft-pruned."""
        name = {node["id"]: node["label"] for node in nodes}
        return {
            (name[e["from"]], e["label"], name[e["to"]])
            for e in drawn
            if bool(e.get("dashes")) == dashed
        }

    assert triples(dashed=False) == set(trace.evidence)
    drawn_egos = [g for g in pruned if any(e.kept for e in g.edges)]
    faded = {(e.head, e.relation, e.tail) for g in drawn_egos for e in g.edges if not e.kept}
    assert len(triples(dashed=True)) == min(len(faded), MAX_PRUNED)
    headers = [n for n in nodes if n["id"].startswith("section:")]  # an ego-graph each
    assert [h["label"] for h in headers] == [
        f"#{i} {g.centre}" for i, g in enumerate(pruned, 1) if g in drawn_egos
    ]
    at_first = [e for e in drawn if e.get("opening", True) and e["section"] == "e1"]
    assert 0 < len(at_first) <= OPEN_TRIPLES  # the best ego-graph opens on what matters


def write_hostile_kg(folder):
    """A custom KG folder whose film is named like an HTML tag, and a question about it."""
    (folder / "kb.tsv").write_text(
        f"{EVIL}\tdirected_by\tJane Doe\n{EVIL}\tstarred_actors\tTom Hanks\n"
        "Forrest Gump\tdirected_by\tRobert Zemeckis\nForrest Gump\tstarred_actors\tTom Hanks\n"
    )
    question = f"who directed {EVIL}"
    (folder / "dev.jsonl").write_text(
        json.dumps({"question": question, "answers": ["Jane Doe"], "topic_entities": [EVIL]}) + "\n"
    )
    return folder, question


@pytest.fixture(scope="module")
def hostile_retrievals(tmp_path_factory):
    """The scored methods' retrieval on a custom KG whose entity is named like an HTML tag."""
    folder, question = write_hostile_kg(tmp_path_factory.mktemp("hostile-scored"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KGVIZ_CACHE", str(tmp_path_factory.mktemp("cache")))
        dataset = CustomDataset(folder)
        context = ReasonerContext(dataset, llm=None)
        return [
            make_reasoner(method, context).retrieve_only(question, [EVIL])
            for method in SCORED_METHODS
        ], dataset.kg


def test_hostile_entity_renders_as_text_in_scored_views(hostile_retrievals):
    traces, kg = hostile_retrievals
    for trace in traces:
        views = stage_views(trace, kg)
        assert_no_raw_markup(views)
        graphs = [v for v in views.values() if isinstance(v, str) and "srcdoc" in v]
        assert graphs and all(any(n["label"] == EVIL for n in vis_data(g)[0]) for g in graphs)
    subgraphrag, gnnrag, grag = (stage_views(trace, kg) for trace in traces)
    assert ESCAPED in subgraphrag["scoring"].data[2].cells.values[2]
    assert f"<li>{ESCAPED} → directed by → Jane Doe</li>" in gnnrag["paths"]
    assert ESCAPED in grag["description"] and any(
        ESCAPED in label for label in grag["ego_graphs"].data[0].y
    )


# ----------------------------------------------------------------- real traces, offline LLM
@pytest.fixture(scope="module")
def demo_traces(local_llm, tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KGVIZ_CACHE", str(tmp_path_factory.mktemp("cache")))
        dataset = get_dataset("demo")
        context = ReasonerContext(dataset, local_llm)
        question = "who directed the movies that Tom Hanks acted in"
        traces = {
            method: make_reasoner(method, context, **config).run(question)
            for method, config in (
                ("simgrag", {"record_tree": True}),
                ("kaping", {}),
                ("llm-only", {}),
            )
        }
        return traces, dataset.kg


@pytest.mark.slow
def test_simgrag_views_on_a_real_trace(demo_traces):
    traces, kg = demo_traces
    trace = traces["simgrag"]
    views = stage_views(trace, kg)
    assert tuple(views) == SIMGRAG_TABS
    pattern = trace.stages["pattern"]
    nodes, _ = vis_data(views["pattern"])
    assert [n["label"] for n in nodes] == [n.text for n in pattern.nodes]
    pools = trace.stages["pools"]
    named = [p for p in [*pools.nodes, *pools.relations] if not p.is_unknown]
    assert [len(row.x) for row in views["pools"].data] == [len(p.candidates) for p in named]
    part = trace.stages["search"].components[0]
    bars = views["search"].data[0]
    assert len(bars.y) == len(part.tree)
    assert (
        list(bars.marker.color).count(OUTCOMES["in_topk"][1])
        == part.tree.outcome.count("in_topk")
        == len([s for s in trace.stages["subgraphs"] if 0 in s.components])
    )
    graph_labels = {n["label"] for n in vis_data(views["subgraphs"])[0]}
    assert {m.name for s in trace.stages["subgraphs"] for m in s.nodes} <= graph_labels
    assert all(f">{html.escape(a)}</mark>" in views["prompt"] for a in trace.answers)
    assert_no_raw_markup(views)


@pytest.mark.slow
def test_baseline_views_on_real_traces(demo_traces):
    traces, kg = demo_traces
    kaping = stage_views(traces["kaping"], kg)
    assert list(kaping) == [
        "linking",
        "grounding",
        "triples",
        "citations",
        "evidence",
        "prompt",
        "timing",
    ]
    ranking = traces["kaping"].stages["triples"]
    (bars,) = kaping["triples"].data
    assert len(bars.x) == min(30, len(ranking.candidates))
    evidence_labels = {n["label"] for n in vis_data(kaping["evidence"])[0]}
    assert {name for h, _, t in traces["kaping"].evidence for name in (h, t)} == evidence_labels
    assert list(stage_views(traces["llm-only"], kg)) == ["prompt", "timing"]


@pytest.fixture(scope="module")
def hostile_traces(local_llm, tmp_path_factory):
    """SimGRAG and KAPING run on a custom KG whose entity is named like an HTML tag."""
    folder, question = write_hostile_kg(tmp_path_factory.mktemp("hostile"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KGVIZ_CACHE", str(tmp_path_factory.mktemp("cache")))
        dataset = CustomDataset(folder)
        context = ReasonerContext(dataset, local_llm)
        traces = [
            make_reasoner(method, context, **config).run(question, [EVIL])
            for method, config in (("simgrag", {"record_tree": True}), ("kaping", {}))
        ]
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


# ----------------------------------------------------------------- gold answers and topics
def test_every_entity_graph_marks_gold_answers_and_topic_entities():
    """With the question's gold answers known, each graph view borders gold answers in gold and
    topic entities in dark, says so on hover and in its legend; without, nothing is marked."""
    for make, stage in (
        (kaping_trace, "evidence"),
        (subgraphrag_trace, "evidence"),
        (gnnrag_trace, "paths"),
        (simgrag_trace, "subgraphs"),
    ):
        trace = make()
        trace.gold = [JANE]
        trace.topics = [EVIL]  # what the run was given (SimGRAG has no linking stage)
        page = stage_views(trace)[stage]
        nodes = {node["label"]: node for node in vis_data(page)[0]}
        assert nodes[JANE]["color"]["border"] == GOLD and nodes[JANE]["borderWidth"] == 4, make
        assert "gold answer" in nodes[JANE]["title"], make
        assert "gold answer (gold border)" in page, make
        assert nodes[EVIL]["color"]["border"] == TOPIC_BORDER, make
        trace.gold = []
        unmarked = {node["label"]: node for node in vis_data(stage_views(trace)[stage])[0]}
        assert "gold answer" not in unmarked[JANE]["title"], make


def test_charts_star_gold_answers_used_or_not():
    trace = simgrag_trace()
    pools = trace.stages["pools"]
    figure = pools_figure(pools, (), Marks.from_names([EVIL, "directed_by"]))
    starred = [a.text for a in figure.layout.annotations if a.text.startswith("★")]
    assert starred == [plotly_text(f"★ {EVIL}")]  # entity pools only: no relation is an answer
    node_row, relation_row = figure.data
    assert list(node_row.marker.line.color) == [GOLD, "#333"]
    assert GOLD not in relation_row.marker.line.color
    node_tick, relation_tick = figure.layout.yaxis.ticktext
    assert "a gold answer is a candidate here (rank 1)" in node_tick and "gold" not in relation_tick
    elsewhere = pools_figure(pools, (), Marks.from_names(["Nobody"]))
    assert "gold answer not in this pool" in elsewhere.layout.yaxis.ticktext[0]
    assert "no subgraph matched" in figure.layout.title.text
    gnn = gnnrag_trace()
    gnn.gold = ["Tom"]
    figure = stage_views(gnn)["gnn"]
    assert list(figure.data[0].y)[1] == "2. ★ Tom"
    assert "★ gold answer, the first at rank 2" in figure.layout.title.text
    gnn.gold = ["Nobody"]
    assert "no gold answer in the subgraph" in stage_views(gnn)["gnn"].layout.title.text


def test_a_stopped_search_says_where_and_the_slider_steps_all_differ():
    search, pattern = folded_search()
    part = search.components[0]
    part.status = "node_budget"
    figure = search_tree_figure(search, pattern, hand_kg())
    (line,) = [a.text for a in figure.layout.annotations]
    assert "node budget" in line and "it stopped at step " in line
    assert f"of {len(part.pattern_edges)}" in line and "partial mappings" in line
    (slider,) = figure.layout.sliders
    labels = [step.label for step in slider.steps]
    assert len(labels) == len(set(labels)) >= 2  # no "1 1 1 2 2 2 …"
    assert slider.active == len(labels) - 1
