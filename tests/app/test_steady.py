"""The lab's widgets hold still: tabs updated in place, results greyed out once the inputs change,
a status that speaks of the inputs shown, files built only when asked for, long replies folded,
and only datasets that are there offered. No LLM: views and runs are made by hand."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import ipywidgets as widgets
import plotly.graph_objects as go

from kgviz.app import Lab, downloads
from kgviz.app.controls import available_datasets
from kgviz.app.downloads import DownloadFile, Downloads
from kgviz.app.render import STALE, drop_stale, mark_stale, update_tabs
from kgviz.datasets import dataset_names
from kgviz.reasoners.base import borrowed_checkpoint_note
from kgviz.runs.run import judged_run
from kgviz.trace import Trace
from kgviz.viz.answer_view import FOLD_LINES, answer_html


def figure(y: list[int]) -> go.Figure:
    return go.Figure(go.Bar(y=y))


def sent(tab: widgets.Tab) -> list[str]:
    """The titles of the pages whose content is sent to the front end from now on."""
    changes: list[str] = []
    for title, page in zip(tab.titles, tab.children, strict=True):
        page.observe(lambda _, title=title: changes.append(title), ["value", "outputs"])
    return changes


def test_tabs_keep_their_widgets_and_send_only_views_that_changed():
    tab = widgets.Tab()
    update_tabs(tab, {"pattern": "<p>pattern</p>", "pools": figure([1, 2])})
    pattern, pools = tab.children
    tab.selected_index = 1
    changes = sent(tab)
    update_tabs(tab, {"pattern": "<p>pattern</p>", "pools": figure([1, 3]), "timing": "<p>t</p>"})
    assert tab.children[:2] == (pattern, pools) and tab.titles == ("pattern", "pools", "timing")
    assert changes == ["pools"] and tab.selected_index == 1  # the pattern graph was left alone
    assert pools.outputs[0]["data"]["application/vnd.plotly.v1+json"]["data"][0]["y"] == [1, 3]
    assert "kgviz-tab-timing" in tab.children[2]._dom_classes
    update_tabs(tab, {"pattern": figure([0])})  # another kind of view: a new page, same place
    assert tab.titles[0] == "pattern" and isinstance(tab.children[0], widgets.Output)
    assert pattern.comm is None  # the page it replaced is closed


def test_a_new_run_greys_old_pages_until_its_views_replace_them():
    tab = widgets.Tab()
    update_tabs(tab, {"linking": "a", "triples": "b", "timing": "c"})
    linking, triples, timing = tab.children
    tab.selected_index = 1
    mark_stale(tab)
    assert all(STALE in page._dom_classes for page in tab.children)
    update_tabs(tab, {"linking": "a2"})  # the new run's first stage
    assert STALE not in linking._dom_classes and STALE in triples._dom_classes
    update_tabs(tab, {"linking": "a2", "timing": "c2", "prompt": "p"}, complete=True)
    assert tab.titles == ("linking", "timing", "prompt") and triples.comm is None
    assert tab.children[:2] == (linking, timing) and tab.selected_index is not None
    mark_stale(tab)
    update_tabs(tab, {"linking": "a3"})  # a run that failed after its first stage
    drop_stale(tab)
    assert tab.titles == ("linking",) and tab.children == (linking,)


def test_the_status_and_the_results_follow_the_inputs():
    app = Lab("demo", "local", "off", ollama=[])
    controls, view = app.controls, app.ask_panel.view
    style = app.children[0]  # the lab's CSS, which greys stale results out
    assert isinstance(style, widgets.HTML) and f".{STALE}{{opacity" in style.value
    controls.status.value = "<div>kaping answered in 1.0 s</div>"
    controls.question.value = "who directed Big"
    assert controls.status.value == ""  # it spoke of other inputs
    controls.status.value = "<div>running …</div>"
    controls.running.set()  # a run's own status stays while it runs
    controls.question.value = "who directed Forrest Gump"
    assert controls.status.value == "<div>running …</div>"
    controls.running.clear()
    view.inputs = controls.inputs("simgrag")
    view.title("who directed Forrest Gump", "simgrag (defaults) · dataset demo · LLM m")
    app.ask_panel.method.value = "kaping"
    assert STALE in view.body._dom_classes and "current method: press Ask" in view.heading.value
    app.ask_panel.method.value = "simgrag"
    assert STALE not in view.body._dom_classes and "current" not in view.heading.value


def test_a_file_is_built_on_click_and_let_go_of_soon_after(monkeypatch, delivered):
    monkeypatch.setattr(downloads, "KEPT_S", 0.2)
    built: list[str] = []

    def build() -> str:
        built.append("x")
        return "é <b>"

    bar = Downloads()
    bar.offer([DownloadFile("notes", "a.txt", "text/plain", build)])
    assert built == [] and bar.delivery.outputs == ()
    assert delivered(bar, "notes") == ("a.txt", "é <b>") and built == ["x"]
    deadline = time.monotonic() + 10
    while bar.delivery.outputs and time.monotonic() < deadline:
        time.sleep(0.05)
    assert bar.delivery.outputs == ()
    bar.offer([])
    assert bar.buttons == {} and "when a run has finished" in bar.note.value


def test_a_long_reply_is_folded_and_a_borrowed_checkpoint_is_a_note():
    reply = "\n".join(f"Robert Zemeckis <{n}>" for n in range(40))
    note = borrowed_checkpoint_note("gnnrag", "demo", "metaqa")
    trace = Trace(
        method="gnnrag",
        question="q",
        answer=reply,
        answers=["Robert Zemeckis"],
        gold=["Robert Zemeckis"],
        warnings=["kaping: 3 candidate triples left out (max_candidates)", note],
    )
    run = judged_run(trace)
    shown = answer_html(run)
    first = shown.index("Robert Zemeckis &lt;0&gt;")
    folded = shown[first : shown.index("<details")]
    assert folded.count("Robert Zemeckis") == FOLD_LINES and "&lt;39&gt;" not in folded
    assert "show all (40 lines" in shown and shown.count("&lt;39&gt;") == 1  # unfolded in full
    assert run.outcome.notes == (note,) and len(run.outcome.run_warnings) == 1
    assert f"note: {note}" in shown and "warning: kaping: 3 candidate" in shown
    assert "warning: gnnrag" not in shown
    short = answer_html(judged_run(Trace(method="kaping", question="q", answer="Tom <Hanks>")))
    assert "<b>Answer</b>: Tom &lt;Hanks&gt;<br>" in short and "<details" not in short


def test_only_datasets_with_their_files_and_questions_are_offered(tmp_path, monkeypatch):
    """The demo ships with kgviz; MetaQA, WebQSP and the others are offered once downloaded (a
    dataset with a graph per question has no KB file: without its questions it is not there)."""
    monkeypatch.setenv("KGVIZ_DATA", str(tmp_path))
    offered = available_datasets("demo")
    assert "demo" in offered and not {"metaqa-1hop", "webqsp", "cwq"} & set(offered)
    assert set(offered) <= set(dataset_names())
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))
    from rog_world import write_rog

    write_rog(tmp_path, "webqsp")
    assert "webqsp" in available_datasets("demo")
    assert available_datasets("custom:/x")[0] == "custom:/x"
