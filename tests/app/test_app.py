"""The lab app without a browser: widget state after calling its methods directly.

Everything is real: the demo KG, the sentence encoder, the reasoners and the LLM (the offline
llama.cpp Qwen2.5-Coder-1.5B behind the response cache, see conftest.py), so a cold run generates
every reply and a warm one replays the real replies recorded before. The assertions check what the
app shows against the trace of the run it made (`AskPanel.trace`, `ComparePanel.traces`), not the
model's exact words; only "who directed Forrest Gump", which the model answers correctly (greedy
decoding, checked), is asserted to be answered correctly. The error-handling test uses the real
Ollama backend pointed at a port where no server answers; no test replaces the LLM with a fake.
Two checks format hand-made traces (no LLM involved): the compare row's cached-cost column, and
the answer line for a hostile reply (the model does not echo the hostile name it is shown).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import ipywidgets as widgets
import networkx as nx
import plotly.io as pio
import pytest

from kgviz.app import Lab, compare
from kgviz.app.ask import AskPanel
from kgviz.app.compare import COLUMNS, comparison_row, comparison_table
from kgviz.app.llm_picker import LLMPicker, ollama_models
from kgviz.app.params import ParamForm
from kgviz.app.render import PLOTLY_MIME, STALE, message
from kgviz.llm import OllamaBackend
from kgviz.reasoners import registry
from kgviz.reasoners.base import option_help
from kgviz.reasoners.simgrag.reasoner import SimGRAGConfig
from kgviz.reasoners.spec import MethodSpec
from kgviz.runs.run import FACTS, judged_run
from kgviz.scoring.metrics import score_trace
from kgviz.trace import LLMCall, Trace
from kgviz.viz import stage_views
from kgviz.viz.answer_view import answer_html
from kgviz.viz.escape import esc
from kgviz.viz.page import external_scripts
from tests.app.lab_helpers import FORREST, HOSTILE, kept_runs, make_lab
from tests.stage_tabs import GRAG_STAGES, SHARED_TABS, SIMGRAG_TABS

QUESTION = "who directed the movies that Tom Hanks acted in"  # a demo example (2-hop)
NO_SERVER = "127.0.0.1:9"  # the discard port: no Ollama server answers there


def page(panel: AskPanel, title: str) -> widgets.Widget:
    """The Ask panel's stage page titled `title`."""
    stages = panel.view.stages
    return stages.children[stages.titles.index(title)]


def texts(tab: widgets.Tab) -> str:
    return " ".join(child.value for child in tab.children if isinstance(child, widgets.HTML))


def assert_ran_on_the_model(trace) -> None:
    """The run asked the real offline model and got a non-empty reply."""
    assert trace.llm_calls and all(call.backend == "llamacpp" for call in trace.llm_calls)
    assert trace.answer.strip()


def assert_shows_answer(panel: AskPanel, gold) -> None:
    """The answer panel shows the (escaped) answer of the run's trace and, with gold answers, the
    verdict hit@1 gives that answer; with none, no verdict."""
    trace, shown = panel.trace, panel.view.answer.value
    assert trace is not None and "<b>Answer</b>: " in shown and esc(trace.answer) in shown
    assert f"<b>committed answers</b>: {esc(', '.join(trace.answers) or '(none)')}" in shown
    verdicts = {verdict for verdict in ("correct", "wrong") if f">{verdict}</b>" in shown}
    if gold is None:
        assert not verdicts and "gold:" not in shown
    else:
        assert verdicts == {"correct" if score_trace(trace, gold).hit1 else "wrong"}
        score = score_trace(trace, gold)
        assert (
            f"(hits@1 {score.hit1:d}, hit {score.hit:d}, F1 {score.f1:.2f}; "
            f"gold: {esc(', '.join(gold))})"
        ) in shown


def test_params_follow_the_config_dataclass():
    form = ParamForm(SimGRAGConfig, {"record_tree": True})  # SimGRAG's recording options
    assert set(form.fields) == {
        "answer_reask",
        "on_ungrounded",
        "answer_list",
        "k",
        "k_nodes",
        "k_relations",
        "max_triples",
        "max_expansions",
        "time_limit_s",
        "record_tree",
        "max_tree_nodes",
        "algorithm",
        "task",
        "relation_hint",
        "relation_vocabulary",
        "reask_lost_topics",
        "pattern_phrases",
        "pattern_checks",
        "own_knowledge",
        "answer_format",
    }
    assert isinstance(form.fields["k"], widgets.IntText)
    assert isinstance(form.fields["reask_lost_topics"], widgets.Checkbox)
    assert isinstance(form.fields["time_limit_s"], widgets.FloatText)
    assert form.fields["algorithm"].options == ("optimized", "algorithm1")
    assert form.fields["record_tree"].value is True  # the lab records the search tree
    assert form.overrides() == {}  # ... as its recording default, not as a change
    form.fields["k"].value = 5
    form.fields["algorithm"].value = "algorithm1"
    form.fields["record_tree"].value = False
    assert form.overrides() == {"k": 5, "algorithm": "algorithm1", "record_tree": False}


@pytest.mark.parametrize("method", registry.method_names())
def test_every_option_shows_its_help_under_it_and_its_whole_label(method):
    """Help is written under each field (not only a tooltip), and every label is wide enough
    for the longest name of the form (0.62 em per character of 13px sans-serif)."""
    config = registry.reasoner_class(method).config_class
    form = ParamForm(config)
    helps = {f.name: option_help(f) for f in dataclasses.fields(config)}
    longest = max(len(name) for name in form.fields)
    for cell in form.grid.children:
        widget, line = cell.children
        name = widget.description
        assert helps[name] and esc(helps[name]) in line.value and "kgviz-help" in line.value
        if not isinstance(widget, widgets.Checkbox):  # a checkbox's label runs beside it
            width = float(widget.style.description_width.removesuffix("em"))
            assert width >= longest * 0.62
    assert len(form.grid.children) == len(form.fields)


def test_the_preset_picker_fills_the_form_and_overrides_are_over_the_preset():
    """Picking `paper` sets its values in the fields (not as overrides of it); a field changed
    after is an override; going back to `tuned` restores the defaults."""
    from kgviz.reasoners.gnnrag.config import GNNRAGConfig
    from kgviz.reasoners.gnnrag.spec import SPEC

    form = ParamForm(GNNRAGConfig, {}, SPEC.presets)
    assert form.preset.options == ("tuned", "paper")
    form.preset.value = "paper"
    assert form.fields["max_nodes"].value == 2000 and form.fields["reach_prior"].value is False
    assert "2,000-node" in form.preset_help.value and form.overrides() == {}
    form.fields["max_paths"].value = 50
    assert form.overrides() == {"max_paths": 50}
    form.preset.value = "tuned"
    assert form.fields["max_nodes"].value == 1000 and form.overrides() == {}


@dataclass
class OptionalConfig:
    checkpoint_root: str | None = None
    weights: tuple[float, ...] = (1.0,)  # no widget for this type: left out


def test_optional_text_fields_map_empty_to_none():
    form = ParamForm(OptionalConfig)
    assert set(form.fields) == {"checkpoint_root"}
    assert form.values()["checkpoint_root"] is None and "checkpoint_root" not in form.overrides()
    form.fields["checkpoint_root"].value = "/tmp/ckpt"
    assert form.overrides() == {"checkpoint_root": "/tmp/ckpt"}


def test_llm_picker_specs():
    picker = LLMPicker("auto", ollama=["llama3:8b"])
    values = [value for _, value in picker.backend.options]
    assert values[0] == "auto" and "ollama:llama3:8b" in values
    assert any(value.startswith("local:") for value in values)
    assert picker.url.layout.display == "none"
    picker.backend.value = "openai"
    picker.url.value, picker.model.value = "http://127.0.0.1:9/v1", "m"
    assert picker.url.layout.display == "flex" and picker.spec == "openai:http://127.0.0.1:9/v1#m"
    assert LLMPicker("local", ollama=[]).spec.startswith("local:qwen")
    assert LLMPicker("ollama:mistral", ollama=[]).spec == "ollama:mistral"


def test_no_ollama_server_lists_no_models(monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")  # discard port: nothing answers
    assert ollama_models(timeout_s=0.5) == []


@pytest.mark.slow
def test_ask_shows_each_stage_progress_answer_and_gold(demo_sessions):
    app = make_lab(demo_sessions)
    assert QUESTION in app.controls.question.options
    app.controls.question.value = QUESTION  # an example: its gold answers are remembered
    gold = app.controls.example().answers
    assert "Robert Zemeckis" in gold and "Robert Zemeckis" in app.controls.gold.value
    app.ask()
    panel = app.ask_panel
    trace = panel.trace
    assert "answered in" in app.controls.status.value and panel.button.disabled is False
    assert trace.method == "simgrag" and trace.question == QUESTION
    assert_ran_on_the_model(trace)
    assert panel.view.stages.titles == SIMGRAG_TABS
    assert len(panel.view.stages.children) == len(SIMGRAG_TABS)
    assert {"pattern", "pools", "search", "generation", "total"} <= set(trace.timings)
    for stage in trace.timings:  # one progress line as each stage finished
        assert panel.progress.value.count(f"stage {stage} done in") == 1
    assert_shows_answer(panel, gold)
    search = page(panel, "search").outputs[0]["data"]["application/vnd.plotly.v1+json"]
    trees = [part.tree for part in trace.stages["search"].components if part.tree is not None]
    assert trees  # the app asks for the tree to be recorded
    bars = [data for data in search["data"] if data["type"] == "bar"]  # a box per search step
    assert sum(len(data["base"]) for data in bars) == sum(len(tree) for tree in trees)
    assert "srcdoc" in page(panel, "pattern").value  # the pattern graph (pyvis in an iframe)
    prompt = page(panel, "prompt").value  # every LLM call of the run, from the real model
    assert "<b>Question:</b>" in prompt and prompt.count("<details open>") == len(trace.llm_calls)
    assert all(f"<b>{call.stage}</b> · llamacpp:{call.model}" in prompt for call in trace.llm_calls)


@pytest.mark.slow
def test_asking_again_replaces_the_tabs_and_typed_questions_have_no_gold(demo_sessions):
    app = make_lab(demo_sessions)
    app.ask("who directed the films Tom Hanks starred in?")
    first = app.ask_panel.trace
    app.ask("who directed the films Tom Hanks starred in?")
    assert app.ask_panel.trace is not first and app.controls.gold.value == ""
    assert app.ask_panel.view.stages.titles == SIMGRAG_TABS
    assert app.ask_panel.progress.value.count("stage total done in") == 1
    assert_shows_answer(app.ask_panel, None)


@pytest.mark.slow
@pytest.mark.parametrize(
    "method, tabs",
    [
        ("llm-only", ("prompt", "timing")),
        (
            "kaping",
            ("linking", "grounding", "triples", "citations", "evidence", "prompt", "timing"),
        ),
    ],
)
def test_other_methods_render_their_stages(demo_sessions, method, tabs):
    app = make_lab(demo_sessions, method=method)
    app.ask(FORREST)
    trace = app.ask_panel.trace
    assert trace.method == method and app.ask_panel.view.stages.titles == tabs
    assert_ran_on_the_model(trace)
    assert_shows_answer(app.ask_panel, app.controls.example().answers)
    assert score_trace(trace, ["Robert Zemeckis"]).hit1  # the model answers this one rightly


@pytest.mark.slow
@pytest.mark.parametrize(
    "method, tabs",
    [
        (
            "subgraphrag",
            ("linking", "grounding", "scoring", "citations", "evidence", "prompt", "timing"),
        ),
        ("gnnrag", ("linking", "grounding", "gnn", "paths", "citations", "prompt", "timing")),
        ("grag", (*GRAG_STAGES, *SHARED_TABS)),
    ],
)
def test_scored_methods_get_their_own_tabs(demo_sessions, method, tabs):
    app = make_lab(demo_sessions, method=method)
    app.ask(FORREST)
    trace = app.ask_panel.trace
    assert trace.method == method and app.ask_panel.view.stages.titles == tabs
    assert "no view for" not in texts(app.ask_panel.view.stages)
    assert_ran_on_the_model(trace)
    assert_shows_answer(app.ask_panel, app.controls.example().answers)


def test_errors_are_messages_not_tracebacks(demo_sessions):
    # Error handling: the real Ollama backend with no server behind it raises LLMUnavailable.
    app = make_lab(demo_sessions, OllamaBackend("llama3:8b", host=NO_SERVER, timeout_s=5))
    app.ask("   ")
    assert "type a question first" in app.controls.status.value
    app.ask(FORREST)
    assert "error: no Ollama server at http://127.0.0.1:9" in app.controls.status.value
    assert app.ask_panel.view.answer.value == "" and app.ask_panel.trace is None
    app.ask_panel.method.value = "simgrag"
    app.ask_panel.form.fields["k"].value = 0
    app.ask(QUESTION)
    assert "k must be at least 1" in app.controls.status.value
    assert app.ask_panel.button.disabled is False


@pytest.mark.slow
def test_the_ask_button_runs_in_the_background(demo_sessions):
    app = make_lab(demo_sessions)
    app.controls.question.value = QUESTION
    app.ask_panel.button.click()
    deadline = time.monotonic() + 600  # a cold run generates the replies on a busy machine

    def done() -> bool:  # the status is said first, then the run is kept and the button freed
        return "answered in" in app.controls.status.value and not app.ask_panel.button.disabled

    while not done() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert done(), app.controls.status.value
    assert app.ask_panel.view.stages.titles[0] == "pattern"
    assert_shows_answer(app.ask_panel, app.controls.example().answers)


@pytest.mark.slow
def test_compare_tabulates_every_ticked_method(demo_sessions):
    app = make_lab(demo_sessions, methods=["simgrag", "kaping", "llm-only"])
    app.compare(QUESTION)
    panel = app.compare_panel
    gold = app.controls.example().answers
    assert app.panels.selected_index == 1
    head = panel.results.heading.value  # the table is headed by what it answers
    assert f"<b>{QUESTION}</b>" in head and "dataset demo · LLM llamacpp:" in head
    assert set(panel.traces) == {"simgrag", "kaping", "llm-only"}
    assert set(panel.graphs.titles) == {"simgrag", "kaping", "llm-only"}
    assert panel.table.value.count("<tr>") == 4  # the header and one row per method
    rows = [comparison_row(run) for run in panel.runs.values()]
    assert panel.table.value == comparison_table(rows)
    for method, trace in panel.traces.items():
        assert_ran_on_the_model(trace)
        assert trace.method == method and trace.question == QUESTION
        correct = "yes" if score_trace(trace, gold).hit1 else "no"
        assert f">{esc(trace.answer)}</div></td>" in panel.table.value
        assert comparison_row(panel.runs[method])[3] == correct
        assert f"{method} done in" in panel.progress.value
    assert "srcdoc" in panel.graphs.children[0].value
    # the methods with evidence side by side, one frame each, following each other
    assert panel.picker.picked == ["simgrag", "kaping"]
    assert panel.side.value.count("<iframe") == 2 and "kgvizSync" in panel.side.value
    panel.picker.toggles["kaping"].value = False
    assert panel.side.value.count("<iframe") == 1
    panel.show_stages("simgrag", "kaping")  # their stages side by side, on the same stage
    first, second = (view.stages for view in panel.stage_views)
    second.selected_index = second.titles.index("prompt")
    assert first.titles[first.selected_index] == "prompt"
    assert "compared 3 methods" in app.controls.status.value
    for check in panel.checks.values():
        check.value = False
    app.compare()
    assert "tick at least one method" in app.controls.status.value


def test_new_methods_appear_automatically(monkeypatch, demo_sessions):
    monkeypatch.setattr(registry, "_SPECS", dict(registry._SPECS))  # this test's own registry
    registry.register_method(
        MethodSpec("llm-only-2", "kgviz.reasoners.llm_only.reasoner:LLMOnly", "a second baseline")
    )
    app = make_lab(demo_sessions)
    assert ("llm-only-2", "llm-only-2") in app.ask_panel.method.options
    assert "llm-only-2" in app.compare_panel.checks
    assert ("grag (hard prompt)", "grag") in app.ask_panel.method.options  # labelled as it is
    assert app.compare_panel.checks["grag"].description == "grag (hard prompt)"
    app.ask_panel.method.value = "llm-only-2"
    assert set(app.ask_panel.form.fields) == {"answer_reask", "max_tokens"}


def test_compare_entry_opens_the_compare_panel_and_reuses_a_session(demo_sessions):
    session = demo_sessions()("demo", "local", "off")
    app = compare("demo", "local", "off", methods=["kaping"], question=QUESTION, session=session)
    assert app.panels.selected_index == 1 and app.controls.question.value == QUESTION
    assert app.compare_panel.selected() == ["kaping"] and app.controls.session() is session


@pytest.mark.slow
def test_hostile_names_stay_text_in_the_app(demo_sessions, tmp_path: Path):
    # The hostile name is in the KG and the gold answers, so the gold line, the verdict, the
    # evidence and the graphs show it whatever the real model replies; no raw tag may appear.
    folder = tmp_path / "kg"
    folder.mkdir()
    (folder / "kb.tsv").write_text(f"Big\tdirected_by\t{HOSTILE}\nBig\tstarred_actors\tTom Hanks\n")
    (folder / "dev.jsonl").write_text(
        json.dumps(
            {"question": "who directed Big", "answers": [HOSTILE], "topic_entities": ["Big"]}
        )
        + "\n"
    )
    app = Lab(
        f"custom:{folder}",
        "auto",
        "off",
        ollama=[],
        session_factory=demo_sessions(),
        methods=["kaping", "llm-only"],
    )
    app.controls.question.value = "who directed Big"
    app.ask_panel.method.value = "kaping"
    app.ask()
    app.compare()
    escaped = "&lt;img src=x onerror=alert(1)&gt;"
    controls, ask, table = app.controls, app.ask_panel, app.compare_panel.table
    assert_ran_on_the_model(ask.trace)
    assert_shows_answer(ask, (HOSTILE,))  # the verdict line shows the gold, escaped
    assert any(HOSTILE in triple for triple in ask.trace.evidence)  # kaping found it
    assert "<b>who directed Big</b>" in ask.view.heading.value
    assert "<b>who directed Big</b>" in app.compare_panel.results.heading.value
    for html in (ask.view.answer.value, controls.gold.value):
        assert "<img" not in html and escaped in html
    assert "<img" not in table.value
    for trace in app.compare_panel.traces.values():
        assert f">{esc(trace.answer)}</div></td>" in table.value
    for tab in (
        app.ask_panel.view.stages,
        app.compare_panel.graphs,
    ):  # pyvis data is \u-escaped too
        assert "<img" not in texts(tab) and "onerror=alert(1)" in texts(tab)
    # the model need not echo the name, so rendering a hostile reply is checked on its own
    reply = Trace(method="kaping", question="q", answer=HOSTILE, answers=[HOSTILE], gold=[HOSTILE])
    shown = answer_html(judged_run(reply))
    assert "<img" not in shown and escaped in shown
    assert comparison_table([[HOSTILE] * 6]).count("&lt;img") == 6


def test_the_answer_box_says_where_a_miss_failed():
    """A hand-made trace (no LLM): gold answers known, none in the evidence, a wrong answer."""
    trace = Trace(
        method="kaping",
        question="who directed Big",
        evidence=[("Big", "starred_actors", "Tom Hanks")],
        answer="Tom Hanks",
        answers=["Tom Hanks"],
        gold=["Penny Marshall"],
    )
    shown = answer_html(judged_run(trace))
    assert ">wrong</b>" in shown and "gold: Penny Marshall" in shown
    assert "<b>gold answer in the evidence</b>: no" in shown
    assert "<b>failed at</b>: retrieval (no gold answer in the evidence)" in shown
    trace.evidence.append(("Big", "directed_by", "Penny Marshall"))
    shown = answer_html(judged_run(trace))
    assert "<b>gold answer in the evidence</b>: yes" in shown
    assert "<b>failed at</b>: generation (a gold answer was in the evidence, but" in shown
    unjudged = judged_run(Trace(method="kaping", question="q", answer="x"))
    assert "failed at" not in answer_html(unjudged)


def test_compare_row_shows_what_a_cached_reply_first_cost():
    call = LLMCall("generation", [], "Robert Zemeckis", 120, 4, 6.5, "llamacpp", "m", cached=True)
    trace = Trace(
        method="kaping",
        question="q",
        answer="Robert Zemeckis",
        answers=["Robert Zemeckis"],
        llm_calls=[call],
        timings={"retrieval": 0.5, "total": 0.6},
    )
    trace.gold = ["Robert Zemeckis"]
    row = dict(zip(COLUMNS, comparison_row(judged_run(trace))))
    assert row["committed"] == "Robert Zemeckis" and row["hits@1"] == "yes"
    assert row["latency (s)"] == "0.6 (cached; 7.1 first)" and row["LLM calls"] == "1 (1 cached)"
    trace.llm_calls[0].cached = False
    trace.gold = []
    row = dict(zip(COLUMNS, comparison_row(judged_run(trace))))
    assert row["latency (s)"] == "0.6" and row["LLM calls"] == "1"


def test_compare_row_scores_the_first_committed_answer():
    trace = Trace(
        method="subgraphrag",
        question="q",
        answers=["Ron Howard", "Robert Zemeckis"],
        answer="No answer found. The director is Robert Zemeckis.",
        timings={"total": 1.0},
    )
    trace.gold = ["Robert Zemeckis"]
    row = dict(zip(COLUMNS, comparison_row(judged_run(trace))))
    assert (row["hits@1"], row["hit"], row["F1"]) == ("no", "yes", "0.67")


@pytest.mark.slow
def test_asking_again_updates_tabs_in_place_and_names_what_it_shows(demo_sessions):
    """A later stage's results reach earlier tabs (the pools tab marks the candidates used); a
    second Ask keeps every page's widget (a view that did not change is not sent again) and the
    tab selected; a failed Ask leaves the last results, greyed out and still named."""
    app = make_lab(demo_sessions)
    app.controls.question.value = FORREST
    app.ask()
    panel = app.ask_panel
    stages = panel.view.stages
    final = stage_views(panel.trace, app.controls.session().dataset.kg)["pools"]
    assert page(panel, "pools").outputs[0]["data"][PLOTLY_MIME] == json.loads(
        pio.to_json(final, validate=False)
    )
    head = panel.view.heading.value
    assert f"<b>{FORREST}</b>" in head and "simgrag (defaults) · dataset demo · LLM " in head
    pages = dict(zip(stages.titles, stages.children, strict=True))
    sent: list[str] = []
    for title, widget in pages.items():
        widget.observe(lambda change, title=title: sent.append(title), ["value", "outputs"])
    stages.selected_index = len(stages.titles) - 1  # the last tab
    app.ask()
    assert dict(zip(stages.titles, stages.children, strict=True)) == pages  # the same widgets
    assert "pattern" not in sent and "subgraphs" not in sent  # their views did not change
    assert stages.selected_index == len(stages.titles) - 1 and panel.trace is not None
    assert not any(STALE in widget._dom_classes for widget in stages.children)
    app.controls.question.value = ""
    app.ask()
    assert "type a question first" in app.controls.status.value
    assert STALE in panel.view.body._dom_classes and f"<b>{FORREST}</b>" in panel.view.heading.value
    assert "not for the current question" in panel.view.heading.value


@pytest.mark.slow
def test_changing_an_input_greys_the_results_out_and_clears_the_status(demo_sessions):
    app = make_lab(demo_sessions, method="kaping", methods=["kaping"])
    app.controls.question.value = FORREST
    app.ask()
    app.compare()
    view, results = app.ask_panel.view, app.compare_panel.results
    assert "compared 1 methods" in app.controls.status.value
    assert STALE not in view.body._dom_classes and STALE not in results.body._dom_classes
    app.controls.question.value = "who directed Big"
    assert app.controls.status.value == ""  # it spoke of the runs before
    for shown in (view, results):
        assert STALE in shown.body._dom_classes and "current question" in shown.heading.value
    app.controls.question.value = FORREST  # back to what the results answer
    assert STALE not in view.body._dom_classes and STALE not in results.body._dom_classes
    app.ask_panel.method.value = "llm-only"  # the Ask panel's results name their method
    assert "current method" in view.heading.value and STALE not in results.body._dom_classes
    app.ask_panel.method.value = "kaping"
    app.controls.llm.backend.value = "openai"
    assert "current llm" in view.heading.value and "current llm" in results.heading.value


@pytest.mark.slow
def test_compare_runs_a_method_with_the_ask_panels_options(demo_sessions):
    app = make_lab(demo_sessions, method="kaping")
    app.ask_panel.form.fields["top_k"].value = 3
    app.controls.question.value = FORREST
    for name, check in app.compare_panel.checks.items():
        check.value = name == "kaping"
    app.compare()
    assert len(app.compare_panel.traces["kaping"].evidence) <= 3


def wait_for(condition, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_runs_download_on_demand_as_trace_page_graph_and_csv(demo_sessions, tmp_path, delivered):
    """Nothing is embedded before a button is clicked; a click hands the browser that one file
    (the trace loads back, the page names the run's context, the CSV has a row per method with
    the question, dataset, gold, LLM, options, date and version)."""
    app = make_lab(demo_sessions, methods=["kaping", "gnnrag"])
    app.controls.question.value = FORREST
    app.ask_panel.method.value = "kaping"
    app.ask()
    downloads = app.ask_panel.view.downloads
    assert downloads.delivery.outputs == ()  # no file travels before it is asked for
    assert set(downloads.buttons) == {
        "trace (JSON)",
        "trace (OpenInference)",
        "page (HTML)",
        "evidence (GraphML)",
        "evidence (JSON)",
    }
    name, text = delivered(downloads, "trace (JSON)")
    assert re.fullmatch(r"kgviz-kaping-\d{6}\.json", name)
    saved = tmp_path / "trace.json"
    saved.write_text(text)
    trace = app.ask_panel.trace
    assert Trace.load(saved).answers == trace.answers and Trace.load(saved).gold == trace.gold
    name, text = delivered(downloads, "evidence (GraphML)")
    graph = nx.parse_graphml(text)
    assert name.endswith("-evidence.graphml")
    assert {(h, t) for h, _, t in trace.evidence} == set(graph.edges())
    assert graph.nodes["Robert Zemeckis"]["gold"] is True
    assert json.loads(delivered(downloads, "evidence (JSON)")[1])["links"]
    name, html = delivered(downloads, "page (HTML)")
    assert name.endswith(".html") and external_scripts(html) == []
    run = kept_runs(app)[-1]
    for fact, value in run.facts().items():  # dataset, question, gold, verdict, LLM, options …
        if value:
            assert f"<tr><th>{esc(fact)}</th><td>{esc(value)}</td></tr>" in html
    app.compare()
    name, text = delivered(app.compare_panel.downloads, "table (CSV)")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert name == "kgviz-compare.csv" and [row["method"] for row in rows] == ["kaping", "gnnrag"]
    for row, run in zip(rows, kept_runs(app)[-2:], strict=True):
        assert {key: row[key] for key in FACTS} == run.facts()
        assert row["question"] == FORREST and row["dataset"] == "demo"
        assert row["gold"] == "Robert Zemeckis" and row["LLM"].startswith("llamacpp:")
        assert row["options"] == "defaults" and row["kgviz"] and row["date"]
        assert row["F1"] == f"{run.outcome.score.f1:.2f}"
    app.compare_panel.show_stages("gnnrag")  # a compare row opened into its stage tabs
    (detail,) = app.compare_panel.stage_views
    assert "paths" in detail.stages.titles and "gnn" in detail.stages.titles


def test_stop_ends_a_run_at_once_as_stopped_and_the_next_run_works(demo_sessions):
    app = make_lab(demo_sessions)
    ask = app.ask_panel
    ask.method.value = "llm-only"
    app.controls.question.value = f"who directed Big ({time.time()})"  # not in the reply cache
    ask.ask(background=True)
    wait_for(lambda: not ask.stop.disabled)
    ask.stop.click()
    wait_for(lambda: not ask.button.disabled)
    assert app.controls.status.value == message("stopped") and ask.trace is None  # not an error
    assert ask.stop.disabled and "took" in ask.clock.value
    app.controls.question.value = FORREST
    ask.ask()
    assert ask.trace is not None and ask.trace.answer


def test_a_custom_folder_joins_the_dataset_picker(demo_sessions, tmp_path):
    app = make_lab(demo_sessions)
    folder = tmp_path / "family"
    folder.mkdir()
    (folder / "kb.tsv").write_text("Ann\tparent_of\tBob\nBob\tparent_of\tCid\n")
    (folder / "dev.jsonl").write_text(
        json.dumps({"question": "who is the child of Ann", "answers": ["Bob"]}) + "\n"
    )
    app.controls.use_folder(str(tmp_path / "missing"))
    assert "not found" in app.controls.status.value and app.controls.dataset.value == "demo"
    app.controls.folder.value = str(folder)
    app.controls.use_folder()
    assert app.controls.dataset.value == f"custom:{folder}"
    assert app.controls.question.options == ("who is the child of Ann",)


def test_a_dataset_with_a_graph_per_question_runs_and_draws_that_graph(
    demo_sessions, tmp_path, tmp_cache, monkeypatch
):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))
    from rog_world import write_rog

    write_rog(tmp_path, "webqsp")
    monkeypatch.setenv("KGVIZ_DATA", str(tmp_path))
    app = Lab("webqsp", "auto", "off", session_factory=demo_sessions(), ollama=[], method="gnnrag")
    question = "what language do they speak in jamaica"  # the first train question: an example
    assert question in app.controls.question.options
    app.ask(question)
    trace, panel = app.ask_panel.trace, app.ask_panel
    assert trace is not None and "answered in" in app.controls.status.value
    own = app.controls.session().dataset.question_graph(app.controls.example())
    triples = {own.triple_names(edge) for edge in range(own.num_triples)}
    assert trace.evidence and set(map(tuple, trace.evidence)) <= triples
    assert panel.view.stages.titles == (
        "linking",
        "grounding",
        "gnn",
        "paths",
        "citations",
        "prompt",
        "timing",
    )
    shown = panel.view.answer.value  # the MetaQA fallback, said as a note (not a warning)
    assert "note: gnnrag: no checkpoint trained on webqsp" in shown
    assert "warning: gnnrag: no checkpoint" not in shown
    app.ask("what language do they speak in atlantis")  # typed: no graph of its own
    assert "gives each question its own graph" in app.controls.status.value


def test_abstain_is_a_choice_next_to_ask_and_the_forms_follow_it(demo_sessions):
    """Ticking "abstain when not grounded" sets every method's on_ungrounded, and an ungrounded
    question then ends with no answer and no LLM call (none is made: the real model stays
    unasked)."""
    app = make_lab(demo_sessions)
    panel = app.ask_panel
    panel.method.value = "kaping"
    panel.abstain.value = True
    assert panel.form.fields["on_ungrounded"].value == "abstain"
    panel.method.value = "simgrag"  # a form built after the tick follows it
    assert panel.form.fields["on_ungrounded"].value == "abstain"
    panel.form.fields["on_ungrounded"].value = "warn"  # and the form's field ticks the box
    assert not panel.abstain.value
    panel.abstain.value = True
    panel.method.value = "kaping"
    panel.ask("who directed The Matrix")
    assert panel.trace.abstained and panel.trace.llm_calls == [] and panel.trace.answers == []
    assert "abstained" in app.controls.status.value


def test_a_run_of_another_method_closes_the_previous_runs_stage_pages():
    """A SimGRAG run's pages are greyed while SimGRAG runs again, but closed when KAPING
    starts: KAPING has no pattern or search stage (a saved trace, no LLM)."""
    from kgviz.app.run_view import RunView

    saved = Path(__file__).parents[1] / "fixtures" / "traces" / "simgrag_6265202.json"
    view = RunView.of(judged_run(Trace.load(saved)))
    assert "pattern" in view.stages.titles
    view.start("who directed Big", "simgrag (defaults)", "simgrag")
    assert "pattern" in view.stages.titles
    assert all(STALE in page._dom_classes for page in view.stages.children)
    view.start("who directed Big", "kaping (defaults)", "kaping")
    assert view.stages.titles == () and view.stages.layout.display == "none"
