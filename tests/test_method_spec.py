"""Adding a method touches its own folder and one registry line: a toy method in
`tests/fixtures/toy_method/kgviz_toy/` (reasoner, config, record, stage name, view, spec) and the
`register_method` call below appear in the CLI, the lab, the evaluation runner and the views.

The toy answers with the topic entity's neighbours and calls no LLM; everything around it is real:
the demo KG, the CLI, the lab's widgets, the evaluation runner and the views."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kgviz.app import Lab
from kgviz.cli import main
from kgviz.eval.results_file import read_results
from kgviz.reasoners import registry
from kgviz.trace import Trace
from kgviz.viz import stage_views

TOY_FOLDER = Path(__file__).parent / "fixtures" / "toy_method"
QUESTION = "who is the director of [Forrest Gump]"


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(TOY_FOLDER))
    monkeypatch.setattr(registry, "_SPECS", dict(registry._SPECS))  # this test's own registry
    registry.register_method("kgviz_toy.spec:SPEC", name="toy")  # the one registry line


def test_the_toy_method_is_listed_and_answers_in_the_cli(toy, capsys):
    assert main(["methods", "--json"]) == 0
    listed = {entry["name"]: entry for entry in json.loads(capsys.readouterr().out)}
    assert listed["toy"]["options"] == [
        {"name": "max_answers", "help": "answers kept, in KG order", "type": "int", "default": 5}
    ]
    assert not listed["toy"]["trainable"]
    assert (
        main(
            [
                "ask",
                QUESTION,
                "--dataset",
                "demo",
                "--method",
                "toy",
                "--llm",
                "local",
                "--cache",
                "off",
                "--json",
            ]
        )
        == 0
    )
    reply = json.loads(capsys.readouterr().out)
    assert reply["method"] == "toy" and reply["answers"] == ["Robert Zemeckis"]
    assert ["Forrest Gump", "directed_by", "Robert Zemeckis"] in reply["evidence"]
    assert main(["train", "toy"]) == 2
    assert "no trainer for 'toy'" in capsys.readouterr().err


@pytest.mark.llm
def test_the_toy_method_runs_in_eval(toy, tmp_path, capsys):
    out = tmp_path / "toy.jsonl"
    assert (
        main(
            [
                "eval",
                "--dataset",
                "demo",
                "--split",
                "dev",
                "--method",
                "toy",
                "--limit",
                "4",
                "--llm",
                "local",
                "--cache",
                "off",
                "--quiet",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    rows = read_results(out)
    assert len(rows) == 4 and {row["method"] for row in rows} == {"toy"}
    assert summary["by_method"]["toy"]["n"] == 4
    assert all(
        row["hit1"] == (row["answers"][:1] != [] and row["answers"][0] in row["gold"])
        for row in rows
    )


@pytest.mark.llm
def test_the_toy_method_is_in_the_lab_and_its_view_draws_its_stage(toy):
    lab = Lab("demo", "local", "off", method="toy", ollama=[])
    panel = lab.ask_panel
    assert ("toy", "toy") in panel.method.options and panel.method.value == "toy"
    assert set(panel.form.fields) == {"max_answers"}
    assert panel.form.fields["max_answers"].tooltip == "answers kept, in KG order"
    lab.ask(QUESTION)
    assert panel.trace is not None and panel.trace.answers == ["Robert Zemeckis"]
    views = stage_views(panel.trace)
    assert "<li>Robert Zemeckis</li>" in views["neighbours"]
    assert "neighbours" in panel.view.stages.titles


@pytest.mark.llm
def test_the_labs_download_of_a_toy_run_loads_back(toy, tmp_path, delivered):
    """The lab's trace download of a plugin method's run names the plugin's record type; with
    the method registered, `Trace.load` rebuilds it and its view draws it again."""
    lab = Lab("demo", "local", "off", method="toy", ollama=[])
    lab.ask(QUESTION)
    name, text = delivered(lab.ask_panel.view.downloads, "trace (JSON)")
    assert re.fullmatch(r"kgviz-toy-\d+\.json", name)
    saved = tmp_path / "toy.json"
    saved.write_text(text)
    assert "kgviz_toy.records:" in saved.read_text()
    loaded = Trace.load(saved)
    trace = lab.ask_panel.trace
    assert loaded.stages == trace.stages and loaded.answers == trace.answers
    assert stage_views(loaded)["neighbours"] == stage_views(trace)["neighbours"]
