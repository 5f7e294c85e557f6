"""The lab app without a browser: widget state after calling its methods directly."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import ipywidgets as widgets
import pytest

from kgviz.app import Lab, compare
from kgviz.app.compare import comparison_table
from kgviz.app.llm_picker import LLMPicker, ollama_models
from kgviz.app.params import ParamForm
from kgviz.llm.errors import LLMUnavailable
from kgviz.reasoners import registry
from kgviz.reasoners.simgrag.reasoner import SimGRAGConfig

QUESTION = "who directed the movies that Tom Hanks acted in"
HOSTILE = "<img src=x onerror=alert(1)>"


def make_lab(scripted_sessions, llm, **options) -> Lab:
    return Lab("demo", "auto", "off", session_factory=scripted_sessions(llm), ollama=[], **options)


def texts(tab: widgets.Tab) -> str:
    return " ".join(child.value for child in tab.children if isinstance(child, widgets.HTML))


def test_params_follow_the_config_dataclass():
    form = ParamForm(SimGRAGConfig)
    assert set(form.fields) == {"k", "k_nodes", "k_relations", "max_triples", "max_expansions",
                                "time_limit_s", "record_tree", "max_tree_nodes", "algorithm",
                                "task"}
    assert isinstance(form.fields["k"], widgets.IntText)
    assert isinstance(form.fields["time_limit_s"], widgets.FloatText)
    assert form.fields["algorithm"].options == ("optimized", "algorithm1")
    assert form.overrides() == {"record_tree": True}  # the app records the search tree
    form.fields["k"].value = 5
    form.fields["algorithm"].value = "algorithm1"
    assert form.overrides() == {"record_tree": True, "k": 5, "algorithm": "algorithm1"}


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


def test_ask_shows_each_stage_progress_answer_and_gold(scripted_sessions, scripted_llm):
    app = make_lab(scripted_sessions, scripted_llm())
    assert QUESTION in app.controls.question.options
    app.controls.question.value = QUESTION  # an example: its gold answers are remembered
    assert "Robert Zemeckis" in app.controls.gold.value
    app.ask()
    panel = app.ask_panel
    assert panel.stages.titles == ("pattern", "pools", "search", "subgraphs", "prompt", "timing")
    assert len(panel.stages.children) == 6
    for stage in ("pattern", "pools", "search", "generation", "total"):
        assert f"stage {stage} done in" in panel.progress.value
    assert "Answer</b>: Robert Zemeckis" in panel.answer.value and "correct" in panel.answer.value
    search = panel.stages.children[2].outputs[0]["data"]["application/vnd.plotly.v1+json"]
    assert search["data"][0]["type"] == "icicle" and len(search["data"][0]["ids"]) > 1
    assert "srcdoc" in panel.stages.children[0].value and "Tom Hanks" in texts(panel.stages)
    assert "answered in" in app.controls.status.value and panel.button.disabled is False


def test_asking_again_replaces_the_tabs_and_typed_questions_have_no_gold(scripted_sessions,
                                                                           scripted_llm):
    app = make_lab(scripted_sessions, scripted_llm("Tom Hanks"))
    app.ask("who directed the films Tom Hanks starred in?")
    app.ask("who directed the films Tom Hanks starred in?")
    assert len(app.ask_panel.stages.children) == 6 and app.controls.gold.value == ""
    assert "correct" not in app.ask_panel.answer.value and "wrong" not in app.ask_panel.answer.value


@pytest.mark.parametrize("method", ["llm-only", "kaping"])
def test_other_methods_render_their_stages(scripted_sessions, method, scripted_llm):
    app = make_lab(scripted_sessions, scripted_llm(), method=method)
    app.ask("who directed Forrest Gump")
    assert app.ask_panel.stages.titles[-2:] == ("prompt", "timing")
    assert "Robert Zemeckis" in app.ask_panel.answer.value


@pytest.mark.parametrize("method, tabs", [
    ("subgraphrag", ("linking", "scoring", "evidence", "prompt", "timing")),
    ("gnnrag", ("linking", "gnn", "paths", "prompt", "timing")),
    ("grag", ("linking", "ego_graphs", "pruning", "description", "prompt", "timing"))])
def test_scored_methods_get_their_own_tabs(scripted_sessions, scripted_llm, method, tabs):
    app = make_lab(scripted_sessions, scripted_llm(), method=method)
    app.ask("who directed Forrest Gump")
    assert app.ask_panel.stages.titles == tabs
    assert "no view for" not in texts(app.ask_panel.stages)


def test_errors_are_messages_not_tracebacks(scripted_sessions, scripted_llm):
    class Unavailable(scripted_llm):
        def complete(self, messages, schema=None, **options):
            raise LLMUnavailable("no Ollama server at http://127.0.0.1:11434: start it")

    app = make_lab(scripted_sessions, Unavailable())
    app.ask("   ")
    assert "type a question first" in app.controls.status.value
    app.ask("who directed Forrest Gump")
    assert "error: no Ollama server" in app.controls.status.value
    app.ask_panel.method.value = "simgrag"
    app.ask_panel.form.fields["k"].value = 0
    app.ask(QUESTION)
    assert "k must be at least 1" in app.controls.status.value
    assert app.ask_panel.button.disabled is False


def test_the_ask_button_runs_in_the_background(scripted_sessions, scripted_llm):
    app = make_lab(scripted_sessions, scripted_llm())
    app.controls.question.value = QUESTION
    app.ask_panel.button.click()
    deadline = time.monotonic() + 60
    while "answered in" not in app.controls.status.value and time.monotonic() < deadline:
        time.sleep(0.1)
    assert app.ask_panel.stages.titles[0] == "pattern" and app.ask_panel.button.disabled is False


def test_compare_tabulates_every_ticked_method(scripted_sessions, scripted_llm):
    app = make_lab(scripted_sessions, scripted_llm(),
                   methods=["simgrag", "kaping", "llm-only"])
    app.compare(QUESTION)
    panel = app.compare_panel
    assert app.panels.selected_index == 1
    assert set(panel.graphs.titles) == {"simgrag", "kaping", "llm-only"}
    assert panel.table.value.count("<tr>") == 4 and ">yes<" in panel.table.value
    assert "srcdoc" in panel.graphs.children[0].value
    assert "llm-only" in panel.progress.value and "compared 3 methods" in app.controls.status.value
    for check in panel.checks.values():
        check.value = False
    app.compare()
    assert "tick at least one method" in app.controls.status.value


def test_new_methods_appear_automatically(monkeypatch, scripted_sessions, scripted_llm):
    monkeypatch.setitem(registry._METHODS, "llm-only-2", "kgviz.reasoners.llm_only:LLMOnly")
    app = make_lab(scripted_sessions, scripted_llm())
    assert "llm-only-2" in app.ask_panel.method.options and "llm-only-2" in app.compare_panel.checks
    app.ask_panel.method.value = "llm-only-2"
    assert set(app.ask_panel.form.fields) == {"max_tokens"}


def test_compare_entry_opens_the_compare_panel_and_reuses_a_session(scripted_sessions,
                                                                       scripted_llm):
    session = scripted_sessions(scripted_llm())("demo", "local", "off")
    app = compare("demo", "local", "off", methods=["kaping"], question=QUESTION, session=session)
    assert app.panels.selected_index == 1 and app.controls.question.value == QUESTION
    assert app.compare_panel.selected() == ["kaping"] and app.controls.session() is session


def test_hostile_names_stay_text_in_the_app(scripted_sessions, tmp_path: Path, scripted_llm):
    folder = tmp_path / "kg"
    folder.mkdir()
    (folder / "kb.tsv").write_text(f"Big\tdirected_by\t{HOSTILE}\nBig\tstarred_actors\tTom Hanks\n")
    (folder / "dev.jsonl").write_text(json.dumps(
        {"question": "who directed Big", "answers": [HOSTILE], "topic_entities": ["Big"]}) + "\n")
    app = Lab(f"custom:{folder}", "auto", "off", ollama=[],
              session_factory=scripted_sessions(scripted_llm(HOSTILE)),
              methods=["kaping", "llm-only"])
    app.controls.question.value = "who directed Big"
    assert HOSTILE not in app.controls.gold.value
    app.ask_panel.method.value = "kaping"
    app.ask()
    app.compare()
    escaped = "&lt;img src=x onerror=alert(1)&gt;"
    controls, ask, table = app.controls, app.ask_panel, app.compare_panel.table
    for html in (ask.answer.value, table.value, controls.gold.value):
        assert HOSTILE not in html and escaped in html
    for tab in (app.ask_panel.stages, app.compare_panel.graphs):  # pyvis data is \u-escaped too
        assert HOSTILE not in texts(tab) and "onerror=alert(1)" in texts(tab)
    assert comparison_table([[HOSTILE] * 6]).count("&lt;img") == 6


def test_compare_row_shows_what_a_cached_reply_first_cost():
    from kgviz.app.compare import comparison_row
    from kgviz.trace import LLMCall, Trace

    call = LLMCall("generation", [], "Robert Zemeckis", 120, 4, 6.5, "llamacpp", "m", cached=True)
    trace = Trace(method="kaping", question="q", answer="Robert Zemeckis", llm_calls=[call],
                  timings={"retrieval": 0.5, "total": 0.6})
    row = comparison_row(trace, ["Robert Zemeckis"])
    assert row[2] == "yes" and row[5] == "0.6 (cached reply; 7.1 when first computed)"
    trace.llm_calls[0].cached = False
    assert comparison_row(trace, None)[5] == "0.6"
