"""SimGRAG's check that a pattern's triples at the topic entities are ones the KG can hold, and
the re-ask it leads to. The reasoner test scripts the LLM's patterns (it tests the code around
the LLM: which pattern is re-asked and which one is searched); the real model's effect is
measured in docs/results.md."""

from __future__ import annotations

import json

import pytest

from kgviz.datasets.registry import get_dataset
from kgviz.embed.kg_index import KGIndex
from kgviz.kg.graph import KnowledgeGraph
from kgviz.llm.base import LLM, Completion
from kgviz.reasoners.base import ReasonerContext
from kgviz.reasoners.registry import make_reasoner
from kgviz.reasoners.simgrag import prompts
from kgviz.reasoners.simgrag.kg_fit import unfit_triples
from kgviz.reasoners.simgrag.query_pattern import parse_pattern

KG = KnowledgeGraph.from_triples(
    [
        ("Heat", "directed_by", "Michael Mann"),
        ("Heat", "starred_actors", "Al Pacino"),
        ("Heat", "written_by", "Michael Mann"),
    ]
)
SHORTCUT = [["Al Pacino", "directed by", "UNKNOWN person 1"]]
TWO_HOPS = [
    ["UNKNOWN movie 1", "starred actors", "Al Pacino"],
    ["UNKNOWN movie 1", "directed by", "UNKNOWN person 1"],
]


def pattern_of(triples: list[list[str]]):
    return parse_pattern({"phrases": [], "triples": triples}, 6)


def test_a_relation_the_entity_never_takes_is_a_problem_naming_what_it_has():
    (problem,) = unfit_triples(pattern_of(SHORTCUT), ["Al Pacino"], KG)
    assert problem.startswith("in the KG, 'Al Pacino' is never the subject of 'directed by'")
    assert "its triples are 'starred actors' (as object)" in problem
    (reversed_role,) = unfit_triples(
        pattern_of([["UNKNOWN person 1", "directed by", "Heat"]]), ["heat"], KG
    )
    assert "'Heat' is never the object of 'directed by'" in reversed_role


@pytest.mark.parametrize(
    ("triples", "topics"),
    [
        (TWO_HOPS, ["Al Pacino"]),  # the role the KG gives it
        ([["Michael Mann", "written by", "UNKNOWN movie 1"]], []),  # not a topic entity
        ([["Al Pacino", "UNKNOWN relation 1", "UNKNOWN person 1"]], ["Al Pacino"]),
        ([["Al Pacino", "mentored", "UNKNOWN person 1"]], ["Al Pacino"]),  # not a KG relation
        ([["Robert De Niro", "directed by", "UNKNOWN person 1"]], ["Robert De Niro"]),  # absent
    ],
)
def test_triples_the_kg_could_hold_or_cannot_judge_are_left_alone(triples, topics):
    assert unfit_triples(pattern_of(triples), topics, KG) == []


class PatternsInTurn(LLM):
    """Scripted patterns, one per pattern request in turn, then a listed answer."""

    name, model = "scripted", "test"

    def __init__(self, *patterns: list[list[str]]) -> None:
        self.patterns = [json.dumps({"phrases": [], "triples": p}) for p in patterns]
        self.asked: list[list] = []

    def complete(self, messages, schema=None, **options) -> Completion:
        self.asked.append(messages)
        if prompts.is_pattern_schema(schema):
            text = self.patterns.pop(0)
        else:
            text = json.dumps({"answers": ["Robert Zemeckis"]})
        return Completion(text, None, 10, 5, 0.01, self.name, self.model)

    def options(self, **overrides):
        return overrides


@pytest.fixture
def demo_context(tmp_cache):
    dataset = get_dataset("demo")
    index = KGIndex.build(dataset.kg)
    return lambda llm: ReasonerContext(dataset, llm, index)


def test_a_pattern_unfit_for_the_kg_is_reasked_and_the_new_one_searched(demo_context):
    shortcut = [["Tom Hanks", "directed by", "UNKNOWN person 1"]]
    two_hops = [
        ["UNKNOWN movie 1", "starred actors", "Tom Hanks"],
        ["UNKNOWN movie 1", "directed by", "UNKNOWN person 1"],
    ]
    llm = PatternsInTurn(shortcut, two_hops)
    trace = make_reasoner("simgrag", demo_context(llm)).run(
        "who directed the films Tom Hanks starred in", ("Tom Hanks",)
    )
    assert [call.stage for call in trace.llm_calls][:2] == ["pattern", "pattern_reask"]
    reask = llm.asked[1][-1]["content"]
    assert "'Tom Hanks' is never the subject of 'directed by'" in reask
    assert "'starred actors' (as object)" in reask
    assert len(trace.stages["pattern"].edges) == 2
    films = {head for head, relation, tail in trace.evidence if tail == "Tom Hanks"}
    directed = {head for head, relation, _ in trace.evidence if relation == "directed_by"}
    assert len(films) == 3 and directed == films  # his films, and who directed each
    assert trace.answers == ["Robert Zemeckis"] and not trace.warnings[1:]

    off = PatternsInTurn(shortcut)
    trace = make_reasoner("simgrag", demo_context(off), reask_unfit_triples=False).run(
        "who directed the films Tom Hanks starred in", ("Tom Hanks",)
    )
    assert [call.stage for call in trace.llm_calls][:2] == ["pattern", "generation"]
