"""Think-on-Graph on the demo KG. The walk's bookkeeping (beams, pruning, what is never walked
back, sampling, ToG-R, attribution, the view) is checked with a scripted stand-in for the LLM's
decisions and scores, replies a real model cannot be made to give on demand; the method itself
runs end to end on the real offline model (the `llm` tests at the end)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kgviz.datasets import get_dataset
from kgviz.datasets.base import QARecord
from kgviz.llm.base import DEFAULT_OPTIONS, LLM, Completion, Message
from kgviz.reasoners.base import ReasonerContext
from kgviz.reasoners.registry import make_reasoner, method_spec
from kgviz.reasoners.tog.diagnosis import lost_path
from kgviz.reasoners.tog.records import WALK, Candidate, Decision, Depth, Walk
from kgviz.reasoners.tog.views.walk import walk_html
from kgviz.scoring.attribution import failed_stage
from kgviz.trace import Trace

QUESTION = "who acted in the movies directed by the director of Titanic"
HOSTILE = "<img src=x onerror=alert(1)>"


class ScriptedLLM(LLM):
    """The walk's stand-in LLM: "not enough" until `enough_at` decisions, then enough with
    `answers`; relation and entity prompts get `relation_reply` and uniform scores."""

    name, model = "scripted", "tog"

    def __init__(
        self, enough_at: int = 99, answers: tuple[str, ...] = (), relation_reply: str = ""
    ) -> None:
        self.enough_at, self.answers, self.relation_reply = enough_at, answers, relation_reply
        self.decisions, self.prompts = 0, []

    def options(self, **overrides: Any) -> dict[str, Any]:
        return {**DEFAULT_OPTIONS, **overrides}

    def complete(self, messages: list[Message], schema: dict | None = None, **options: Any):
        self.prompts.append(messages[-1]["content"])
        if schema is not None and "enough" in schema["properties"]:
            self.decisions += 1
            enough = self.decisions >= self.enough_at
            answers = list(self.answers) if enough else []
            text = json.dumps({"enough": enough, "answers": answers, "reason": "scripted"})
        elif schema is not None:
            text = json.dumps({"answers": list(self.answers)})
        elif "Relations:" in messages[-1]["content"]:
            text = self.relation_reply
        else:
            text = "Scores: " + ", ".join(["0.5"] * 20)
        return Completion(text, None, 10, 5, 0.01, self.name, self.model)


@pytest.fixture(scope="module")
def demo():
    dataset = get_dataset("demo")
    dataset.kg  # noqa: B018  (load once)
    return dataset


def walked(demo, llm: LLM, **options: Any) -> Trace:
    reasoner = make_reasoner("tog", ReasonerContext(demo, llm), **options)
    return reasoner.run(QUESTION, ["Titanic"])


def test_each_depth_keeps_at_most_width_paths_and_never_walks_back(demo):
    trace = walked(demo, ScriptedLLM(answers=("James Cameron",)))
    walk: Walk = trace.stages[WALK]
    assert [step.depth for step in walk.depths] == [1, 2, 3] and walk.ended == "depth"
    assert walk.depths[0].beam == ["Titanic"]
    for step in walk.depths:
        kept = [c for c in step.candidates if c.kept]
        assert 0 < len(kept) <= 3
        assert all(c.why for c in step.candidates if not c.kept)
        assert [c.score for c in step.candidates] == sorted(
            (c.score for c in step.candidates), reverse=True
        )
        for choice in step.relations:
            assert len(choice.kept) <= 3
            assert abs(sum(choice.scores) - 1) < 1e-3 if choice.kept else choice.note
    for path in walk.paths:
        assert len(path) == 3 and len({t for t in path}) == 3  # no triple walked back
    assert set(trace.evidence) == {t for path in walk.paths for t in path}
    assert trace.stages["linking"].names == ["Titanic"]
    assert [c.stage for c in trace.llm_calls] == ["reasoning"] * 3 + ["generation"]


def test_enough_ends_the_walk_with_its_answers(demo):
    trace = walked(demo, ScriptedLLM(enough_at=1, answers=("James Cameron",)))
    walk: Walk = trace.stages[WALK]
    assert walk.ended == "enough" and len(walk.depths) == 1
    assert walk.depths[-1].decision == Decision(True, "scripted", ["James Cameron"])
    assert trace.answers == ["James Cameron"]
    assert [c.stage for c in trace.llm_calls] == ["reasoning"]  # no answer call after it


def test_the_tuned_decision_lists_only_the_paths_names(demo):
    llm = ScriptedLLM()
    walked(demo, llm)
    assert "Titanic → directed_by → James Cameron" in llm.prompts[0]


def test_the_llm_pruner_asks_for_relations_and_scores_and_reads_them(demo):
    reply = "1. directed by (0.6)\n2. starred actors (0.4)"
    llm = ScriptedLLM(relation_reply=reply)
    trace = walked(demo, llm, pruner="llm", depth=1)
    choice = trace.stages[WALK].depths[0].relations[0]
    assert choice.kept == ["directed_by", "starred_actors"] and choice.scores == [0.6, 0.4]
    stages = [c.stage for c in trace.llm_calls]
    assert stages[0] == "relation pruning" and "entity pruning" in stages
    bad = walked(demo, ScriptedLLM(relation_reply="I cannot tell."), pruner="llm", depth=1)
    assert bad.stages[WALK].depths[0].relations[0].note.startswith("the LLM's reply named no")
    assert bad.stages[WALK].ended == "no candidates" and bad.evidence == []


def test_tog_r_keeps_every_end_of_its_best_relation_chains(demo):
    trace = walked(demo, ScriptedLLM(), beam="relation", depth=1, width=1)
    step = trace.stages[WALK].depths[0]
    kept = [c for c in step.candidates if c.kept]
    assert len({(c.relation, c.forward) for c in kept}) == 1 and len(kept) >= 1
    assert len({c.score for c in kept}) == 1  # the ends are not scored apart


def test_a_miss_is_blamed_on_the_step_that_lost_the_gold_path():
    record = QARecord("q", ("Gold",), ("Start",), "q1")
    pruned = Candidate("Start", "r", "Gold", True, 0.1, False, "outside the beam's 3 best")
    walk = Walk([Depth(1, ["Start"], candidates=[pruned])], ended="depth")
    trace = Trace(method="tog", question="q", answers=["Other"], answer="Other")
    trace.record(WALK, walk)
    assert lost_path(trace, record)[0] == "entity pruning"
    walk.depths[0].candidates = []
    walk.ended = "enough"
    assert lost_path(trace, record)[0] == "reasoning"
    walk.ended = "depth"
    assert failed_stage(trace, record).stage == "relation pruning"
    trace.evidence = [("Start", "r", "Gold")]
    assert lost_path(trace, record) is None  # the reader's miss: generation
    assert set(method_spec("tog").stages) == {"relation pruning", "entity pruning", "reasoning"}


def test_the_walk_view_shows_names_as_text():
    step = Depth(1, [HOSTILE], candidates=[Candidate(HOSTILE, "r", "Gold", True, 0.5, True)])
    step.decision = Decision(False, HOSTILE)
    html = walk_html(Walk([step], ended="depth"), gold=["gold"])
    assert HOSTILE not in html and "&lt;img src=x" in html
    assert '<td class="gold">Gold</td>' in html and "enough? no" in html


def test_both_presets_are_listed_and_differ_as_stated():
    spec = method_spec("tog")
    assert [preset.name for preset in spec.presets] == ["tuned", "paper"]
    paper = spec.preset("paper").values
    assert paper["pruner"] == "llm" and paper["exploration_temperature"] == 0.4
    config = spec.config_class()()
    assert (config.width, config.depth, config.keep_entities, config.sample_above) == (3, 3, 5, 20)


@pytest.mark.slow
def test_the_question_of_the_issue_is_answered_on_the_real_model(demo, local_llm):
    trace = make_reasoner("tog", ReasonerContext(demo, local_llm)).run(QUESTION, ["Titanic"])
    walk: Walk = trace.stages[WALK]
    assert walk.depths and all(step.decision is not None for step in walk.depths)
    assert trace.answers and all(step.calls >= 1 for step in walk.depths)
    assert set(trace.answers) <= {n for h, _, t in trace.evidence for n in (h, t)}


@pytest.mark.slow
def test_the_paper_preset_prunes_with_the_real_model(demo, local_llm):
    options = dict(method_spec("tog").preset("paper").values)
    reasoner = make_reasoner("tog", ReasonerContext(demo, local_llm), **options, depth=1)
    trace = reasoner.run("who directed Titanic", ["Titanic"])
    stages = [call.stage for call in trace.llm_calls]
    assert stages[0] == "relation pruning" and "reasoning" in stages
    assert trace.stages[WALK].depths[0].relations[0].listed
