"""A malformed SimGRAG pattern gets one re-ask quoting its problems before any repair drops a
triple. The LLM here is a stub on loopback replaying recorded replies (it says so), driven
through kgviz's real OpenAI-protocol backend; the search runs on the demo KG."""

from __future__ import annotations

import json

from kgviz.datasets import get_dataset
from kgviz.llm.openai_backend import OpenAIBackend
from kgviz.reasoners.base import ReasonerContext
from kgviz.reasoners.registry import make_reasoner
from kgviz.reasoners.simgrag.reasoner import PATTERN_REASK_STAGE

QUESTION = "who directed the films that Tom Hanks acted in"
PHRASES = ["a film has Tom Hanks among its starred actors", "that film was directed by someone"]
SELF_LOOP = {
    "phrases": PHRASES,
    "triples": [
        ["UNKNOWN movie 1", "starred actors", "Tom Hanks"],
        ["UNKNOWN person 1", "directed by", "UNKNOWN person 1"],
    ],
}
FIXED = {
    "phrases": PHRASES,
    "triples": [
        ["UNKNOWN movie 1", "starred actors", "Tom Hanks"],
        ["UNKNOWN movie 1", "directed by", "UNKNOWN person 1"],
    ],
}
ANSWER = {"answers": ["Robert Zemeckis"]}  # the tuned answer list


def reply(content: dict) -> bytes:
    return json.dumps(
        {
            "choices": [{"message": {"content": json.dumps(content)}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 20},
        }
    ).encode()


def run(fault_server, replies: list[dict], **options):
    bodies: list[str] = []

    def script(number: int, body: str):
        bodies.append(body)
        return 200, reply(replies[min(number, len(replies) - 1)]), 0

    server = fault_server(script)
    dataset = get_dataset("demo")
    context = ReasonerContext(dataset, OpenAIBackend(server.url + "/v1", "m"))
    return make_reasoner("simgrag", context, **options).run(QUESTION, ["Tom Hanks"]), bodies


def test_a_self_loop_is_reasked_and_the_fixed_pattern_searched(fault_server, tmp_cache):
    trace, bodies = run(fault_server, [SELF_LOOP, FIXED, ANSWER])
    assert [call.stage for call in trace.llm_calls] == [
        "pattern",
        PATTERN_REASK_STAGE,
        "generation",
    ]
    reask = json.loads(bodies[1])["messages"][-1]["content"]
    assert "links 'UNKNOWN person 1' to itself" in reask and "one triple per phrase" in reask
    pattern = trace.stages["pattern"]
    assert pattern.triples() == [tuple(t) for t in FIXED["triples"]] and not pattern.malformed
    assert any(w.startswith("pattern re-asked: triple 2 links") for w in trace.warnings)
    assert ("Cast Away", "directed_by", "Robert Zemeckis") in trace.evidence  # GSD ties by name
    assert not trace.reasked  # the answer itself needed no re-ask


def test_a_worse_reply_keeps_the_first_pattern_repaired(fault_server, tmp_cache):
    worse = {"phrases": PHRASES, "triples": [["Tom Hanks", "starred actors", "Tom Hanks"]]}
    trace, _ = run(fault_server, [SELF_LOOP, worse, ANSWER])
    pattern = trace.stages["pattern"]
    assert pattern.triples() == [("UNKNOWN movie 1", "starred actors", "Tom Hanks")]
    assert "triple 2 dropped: self-loop on 'UNKNOWN person 1'" in pattern.repairs
    assert "pattern re-ask: the LLM reply has no usable triple" in " ".join(trace.warnings)


def test_a_well_formed_pattern_is_not_reasked(fault_server, tmp_cache):
    trace, bodies = run(fault_server, [FIXED, ANSWER])
    assert [call.stage for call in trace.llm_calls] == ["pattern", "generation"]
    assert len(bodies) == 2


LOST = {  # well formed, but Tom Hanks, the question's entity, is no node
    "phrases": PHRASES,
    "triples": [
        ["UNKNOWN movie 1", "starred actors", "UNKNOWN person 2"],
        ["UNKNOWN movie 1", "directed by", "UNKNOWN person 1"],
    ],
}


def test_a_pattern_without_the_topic_entity_is_reasked(fault_server, tmp_cache):
    trace, bodies = run(fault_server, [LOST, FIXED, ANSWER])
    assert [call.stage for call in trace.llm_calls] == [
        "pattern",
        PATTERN_REASK_STAGE,
        "generation",
    ]
    reask = json.loads(bodies[1])["messages"][-1]["content"]
    assert "the question's entity 'Tom Hanks' is not a node" in reask
    assert trace.stages["pattern"].triples() == [tuple(t) for t in FIXED["triples"]]
    assert ("Cast Away", "directed_by", "Robert Zemeckis") in trace.evidence  # GSD ties by name


def test_the_topic_reask_can_be_turned_off(fault_server, tmp_cache):
    trace, _ = run(fault_server, [LOST, ANSWER], reask_lost_topics=False)
    assert [call.stage for call in trace.llm_calls][:2] == ["pattern", "generation"]
    assert trace.stages["pattern"].triples() == [tuple(t) for t in LOST["triples"]]


DRIFTED = {  # a re-ask that copied the prompt's examples instead of the question
    "phrases": ["Blade Runner was directed by someone", "Amelie was written by someone"],
    "triples": [
        ["Blade Runner", "directed by", "UNKNOWN person 1"],
        ["Amelie", "written by", "UNKNOWN person 1"],
    ],
}
THREE_PHRASES = {**FIXED, "phrases": [*PHRASES, "that director is a person"]}


def test_the_reask_restates_the_question_and_a_drifted_reply_is_not_taken(fault_server, tmp_cache):
    trace, bodies = run(fault_server, [THREE_PHRASES, DRIFTED, ANSWER])
    reask = json.loads(bodies[1])["messages"][-1]["content"]
    assert f"The question is: {QUESTION}" in reask and "3 phrases but 2 usable" in reask
    assert trace.stages["pattern"].triples() == [tuple(t) for t in FIXED["triples"]]
    assert ("Cast Away", "directed_by", "Robert Zemeckis") in trace.evidence


def test_a_first_pattern_naming_what_the_question_does_not_is_reasked(fault_server, tmp_cache):
    trace, bodies = run(fault_server, [DRIFTED, FIXED, ANSWER], reask_lost_topics=False)
    reask = json.loads(bodies[1])["messages"][-1]["content"]
    assert "'Blade Runner' is not in the question" in reask and "'Amelie'" in reask
    assert trace.stages["pattern"].triples() == [tuple(t) for t in FIXED["triples"]]


def test_parallel_triples_between_unknowns_keep_the_last(fault_server, tmp_cache):
    restated = {  # the chain's fact restated, then the one asked for, on the same two nodes
        "phrases": PHRASES,
        "triples": [
            ["UNKNOWN movie 1", "starred actors", "Tom Hanks"],
            ["UNKNOWN movie 1", "starred actors", "UNKNOWN person 1"],
            ["UNKNOWN movie 1", "directed by", "UNKNOWN person 1"],
        ],
    }
    trace, _ = run(fault_server, [restated, ANSWER])
    assert trace.stages["pattern"].triples() == [tuple(t) for t in FIXED["triples"]]
    assert any("links the same two UNKNOWN nodes" in r for r in trace.stages["pattern"].repairs)


def test_the_paper_preset_keeps_its_pattern_as_written(fault_server, tmp_cache):
    trace, bodies = run(fault_server, [THREE_PHRASES, DRIFTED, ANSWER], pattern_checks=False)
    assert "The question is" not in json.loads(bodies[1])["messages"][-1]["content"]
    assert trace.stages["pattern"].triples() == [tuple(t) for t in DRIFTED["triples"]]
