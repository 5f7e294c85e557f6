"""Grounding: what a question names is checked against the KG before any answer. The demo KG,
its real vector index and the real linker; the abstaining runs point at an LLM address where no
server listens, which proves that they make no LLM call."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kgviz.cli import main
from kgviz.datasets import get_dataset
from kgviz.reasoners.base import ReasonerContext
from kgviz.reasoners.grounding import GROUNDING, name_runs, named_runs, question_grounding
from kgviz.reasoners.linking import entity_names, link_entities
from kgviz.reasoners.registry import make_reasoner

NO_SERVER = "openai:http://127.0.0.1:9/v1#none"


@pytest.fixture(scope="module")
def demo() -> ReasonerContext:
    return ReasonerContext(get_dataset("demo"), None)


def runs(question: str) -> list[str]:
    words = question.split()
    return [" ".join(words[start:end]) for start, end in name_runs(question)]


def test_name_runs_keep_titles_whole():
    assert runs("when was Top Gun Maverick released") == ["Top Gun Maverick"]
    assert runs("when was Anatomy of a Fall released") == ["Anatomy of a Fall"]
    assert runs("who starred in Drive My Car") == ["Drive My Car"]
    assert runs("who directed The Matrix") == ["The Matrix"]
    assert runs("what films did Tom Hanks and Meg Ryan make") == ["Tom Hanks", "Meg Ryan"]
    assert runs("who directed the movies released in 1994") == ["1994"]
    assert runs("what did he direct") == []


def test_a_run_two_kg_names_cover_is_still_one_name(demo):
    names = entity_names(demo)
    assert named_runs(names, "who directed Forrest Gump") == (["Forrest Gump"], [])
    assert named_runs(names, "who directed Forrest Gump Returns") == ([], ["Forrest Gump Returns"])


@pytest.mark.parametrize(
    ("question", "grounded"),
    [
        ("who directed Forrest Gump", True),
        ("who directed the dark knight", True),  # normalised
        ("who directed Forest Gump", True),  # a slip of the keys: spelt nearly the same
        ("who directed Dark Knight", True),  # without its article: the nearest vector
        ("who directed The Matrix", False),
        ("who directed the movies that Zorblax Quintavius acted in", False),
    ],
)
def test_questions_are_grounded_or_not(demo, question, grounded):
    grounding = question_grounding(
        demo.index, entity_names(demo), question, linking=link_entities(demo, question)
    )
    assert grounding.grounded is grounded, grounding.mentions
    if not grounded:
        absent = grounding.missing[0]
        assert absent.source == "name" and absent.distance > grounding.threshold
        assert f"{absent.mention!r} is not in this KG; nearest: " in grounding.warning()


def test_a_given_name_not_in_the_kg_is_ungrounded(demo):
    grounding = question_grounding(
        demo.index, entity_names(demo), "who directed it", given=["Zorblax Quintavius"]
    )
    assert not grounding.grounded and grounding.missing[0].source == "given"


@pytest.mark.parametrize("method", ["kaping", "simgrag", "subgraphrag", "gnnrag", "grag"])
def test_abstaining_on_an_ungrounded_question_makes_no_llm_call(demo, method, tmp_path, capsys):
    code = main(
        [
            "ask",
            "who directed the movies that Zorblax Quintavius acted in",
            "--dataset",
            "demo",
            "--method",
            method,
            "--llm",
            NO_SERVER,
            "--cache",
            "off",
            "--set",
            "on_ungrounded=abstain",
            "--json",
        ]
    )
    assert code == 0, capsys.readouterr().err
    reply = json.loads(capsys.readouterr().out)
    assert reply["abstained"] and reply["answers"] == [] and reply["tokens"]["prompt"] == 0
    assert reply["grounding"]["grounded"] is False
    assert "'Zorblax Quintavius' is not in this KG" in reply["warnings"][0]


def test_a_grounded_question_records_its_grounding(demo):
    trace = make_reasoner("kaping", demo).retrieve_only("who directed Forrest Gump")
    grounding = trace.stages[GROUNDING]
    assert grounding.grounded and [m.entity for m in grounding.mentions] == ["Forrest Gump"]
    assert not any("not grounded" in w for w in trace.warnings)


@pytest.mark.slow
@pytest.mark.llm
def test_ask_says_the_matrix_is_not_in_the_demo_kg():
    """The issue's own case, with the real offline model answering anyway (warn)."""
    result = subprocess.run(
        [sys.executable, "-m", "kgviz", "ask", "who directed The Matrix", "--dataset", "demo"]
        + ["--llm", "local", "--json"],
        check=False,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr
    reply = json.loads(result.stdout)
    assert reply["grounding"]["grounded"] is False
    assert any("The Matrix" in w and "not in this KG" in w for w in reply["warnings"])
    assert reply["grounding"]["entities"][0]["mention"] == "The Matrix"


def test_an_ungrounded_answer_is_marked_in_the_answer_box_the_facts_and_the_store(demo, tmp_path):
    """The answer of a question the KG does not hold is greyed and labelled, and says "no" in
    the exports' facts and the run table. The reader is scripted (the display is under test)."""
    from kgviz.app.run_table import COLUMNS
    from kgviz.runs.run import judged_run
    from kgviz.runs.store import RunStore
    from kgviz.viz.answer_view import answer_html
    from tests.reasoners.test_listed_answers import ScriptedLLM

    context = ReasonerContext(demo.dataset, ScriptedLLM(["Robert Zemeckis"] * 3))
    trace = make_reasoner("kaping", context).run("who directed The Matrix")
    run = judged_run(trace)
    box = answer_html(run)
    assert (
        'class="kgviz-not-grounded"' in box and "(not grounded: the KG does not back them)" in box
    )
    assert run.facts()["grounded"].startswith("no: ") and "The Matrix" in run.facts()["grounded"]
    store = RunStore(tmp_path / "runs")
    entry = store.save(run)
    cells = {column.name: column.text(entry) for column in COLUMNS}
    assert cells["grounded"] == "no"
    answering = ReasonerContext(demo.dataset, ScriptedLLM(["Robert Zemeckis"] * 3))
    grounded = judged_run(make_reasoner("kaping", answering).run("who directed Forrest Gump"))
    assert "kgviz-not-grounded" not in answer_html(grounded)
    assert grounded.facts()["grounded"] == "yes"
