"""Traces saved as versioned JSON load back with every record, draw the same views, and make a
self-contained page (real runs of every method on the demo KG with the offline model)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import plotly.graph_objects as go
import pytest

from kgviz.errors import KgvizError
from kgviz.reasoners.registry import method_names
from kgviz.runs.run import judged_run
from kgviz.session import open_session
from kgviz.trace import Trace
from kgviz.viz import stage_views
from kgviz.viz.page import external_scripts, run_page
from tests.stage_tabs import HAND_BUILT_SIMGRAG_STAGES, SHARED_TABS, SIMGRAG_TABS


def drawn(views: dict) -> dict:
    return {
        name: view.to_json() if isinstance(view, go.Figure) else view
        for name, view in views.items()
    }


@pytest.mark.slow
def test_every_method_saves_loads_and_draws_the_same(tmp_path):
    session = open_session("demo", "local")
    kg = session.dataset.kg
    for method in method_names():
        options = {"record_tree": True} if method == "simgrag" else {}
        trace = session.reasoner(method, **options).run(
            "who directed Forrest Gump", ["Forrest Gump"]
        )
        path = tmp_path / f"{method}.json"
        trace.save(path)
        loaded = Trace.load(path)
        assert list(loaded.stages) == list(trace.stages)
        assert (loaded.answer, loaded.answers, loaded.evidence) == (
            trace.answer,
            trace.answers,
            trace.evidence,
        )
        assert drawn(stage_views(loaded, kg)) == drawn(stage_views(trace, kg)), method
    loaded.gold = ["Robert Zemeckis"]
    page = run_page(judged_run(loaded, kg=kg))
    assert external_scripts(page) == [] and "hits@1" in page


def test_a_trace_file_cannot_import_outside_kgviz(tmp_path):
    path = tmp_path / "t.json"
    Trace(method="m", question="q").save(path)
    saved = json.loads(path.read_text())
    saved["stages"] = {"evil": {"__record__": "os:system", "command": "true"}}
    path.write_text(json.dumps(saved))
    with pytest.raises(KgvizError, match="outside kgviz"):
        Trace.load(path)
    path.write_text("[1, 2]")
    with pytest.raises(KgvizError, match="is not a kgviz trace"):
        Trace.load(path)


# saved by kgviz 6265202 (a scripted LLM on the demo KG), before SimGRAG's modules were renamed
OLD_SIMGRAG_TRACE = Path(__file__).parents[1] / "fixtures" / "traces" / "simgrag_6265202.json"


def test_a_trace_saved_by_an_older_kgviz_still_loads_and_draws():
    """Record types saved under a module path that has since moved still load, and a search tree
    saved before it kept the k-th best and the search order draws without them."""
    trace = Trace.load(OLD_SIMGRAG_TRACE)
    assert list(trace.stages) == ["pattern", "pools", "search", "subgraphs", "generation"]
    pools = trace.stages["pools"]
    assert pools.nodes[0].candidates[0].name == "Forrest Gump" and pools.relations
    assert trace.stages["subgraphs"][0].triples[0] == (
        "Forrest Gump",
        "directed_by",
        "Robert Zemeckis",
    )
    views = stage_views(trace)
    assert list(views) == [*HAND_BUILT_SIMGRAG_STAGES, *SHARED_TABS]
    assert not any("no view for" in view for view in views.values() if isinstance(view, str))
    tree = trace.stages["search"].components[0].tree
    assert (tree.kth_best, tree.steps) == ([], []) and tree.kth_of(3) is None
    (bars,) = views["search"].data
    assert bars.text[3].startswith("✂") and "&gt;" not in bars.text[3]


@pytest.mark.slow
def test_ask_writes_a_page_and_a_trace(tmp_path):
    page, saved = tmp_path / "run.html", tmp_path / "run.json"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "kgviz",
            "ask",
            "who directed Forrest Gump",
            "--dataset",
            "demo",
            "--method",
            "simgrag",
            "--llm",
            "local",
            "--html",
            str(page),
            "--trace",
            str(saved),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    html = page.read_text()
    assert external_scripts(html) == [] and "kgviz-fit" in html and "Search tree" in html
    assert tuple(stage_views(Trace.load(saved))) == SIMGRAG_TABS


def test_graph_documents_fetch_nothing():
    """pyvis's template links bootstrap from a CDN; kgviz strips it (a page must open offline),
    and `external_scripts` looks inside the frames' documents too."""
    from kgviz.viz.graph_data import VisEdge, VisNode
    from kgviz.viz.network import network_frame, with_legend

    graph = with_legend(
        network_frame([VisNode("a", "a"), VisNode("b", "b")], [VisEdge("a", "b", "r")])
    )
    assert external_scripts(graph) == [] and "kgvizFit" in graph
    leaky = '<iframe srcdoc="&lt;script src=&quot;https://cdn.example/x.js&quot;&gt;"></iframe>'
    assert external_scripts(leaky) == ["https://cdn.example/x.js"]
