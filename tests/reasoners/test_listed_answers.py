"""The tuned presets' answer call: a JSON list of names constrained to the evidence's names.

The schema is checked as data; the call's handling of what a reply can be (a list, an empty list,
no JSON at all) is checked with a scripted stand-in, since a real model cannot be made to give
those replies on demand; each method's real-model runs (their own test files) answer through it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from kgviz.llm.base import DEFAULT_OPTIONS, LLM, Completion, Message
from kgviz.reasoners.prompting import (
    LISTED_ANSWERS,
    answer_list_schema,
    answer_messages,
    generate_listed_answer,
    list_reply,
)
from kgviz.reasoners.registry import method_spec
from kgviz.trace import REASK_STAGE, Trace


class ScriptedLLM(LLM):
    """Replies in turn with `replies`, recording each request's schema."""

    name, model = "scripted", "listed"

    def __init__(self, replies: list[str]) -> None:
        self.replies, self.schemas = list(replies), []

    def options(self, **overrides: Any) -> dict[str, Any]:
        return {**DEFAULT_OPTIONS, **overrides}

    def complete(self, messages: list[Message], schema: dict | None = None, **options: Any):
        self.schemas.append(schema)
        return Completion(self.replies.pop(0), None, 10, 5, 0.01, self.name, self.model)


def answered(replies: list[str], **settings: Any) -> tuple[Trace, ScriptedLLM, list[str]]:
    llm = ScriptedLLM(replies)
    trace = Trace(method="subgraphrag", question="who directed Forrest Gump")
    facts = ["(Forrest Gump, directed by, Robert Zemeckis)"]
    messages = answer_messages(trace.question, facts, listed=True)
    choices = ["Robert Zemeckis", "Ron Howard", "Tom Hanks"]
    listed = generate_listed_answer(trace, llm, messages, choices, **settings)
    return trace, llm, listed


def test_the_schema_lists_at_most_ten_of_the_evidences_names_or_any_short_text():
    schema = answer_list_schema(["b", "a", "b"])
    answers = schema["properties"]["answers"]
    assert answers["items"] == {"type": "string", "enum": ["a", "b"]}
    assert answers["maxItems"] == LISTED_ANSWERS and answers["minItems"] == 0
    assert schema["required"] == ["answers"]
    free = answer_list_schema([], at_least=1)["properties"]["answers"]
    assert free["items"] == {"type": "string", "maxLength": 80} and free["minItems"] == 1
    assert json.loads(list_reply(["1987", "Zoë"])) == {"answers": ["1987", "Zoë"]}


def test_a_listed_answer_is_committed_as_the_reader_ordered_it():
    trace, llm, listed = answered([list_reply(["Ron Howard", "Robert Zemeckis", "Ron Howard"])])
    assert listed == trace.answers == ["Ron Howard", "Robert Zemeckis"]
    assert trace.answer == "Ron Howard, Robert Zemeckis" and not trace.reasked
    assert llm.schemas[0]["properties"]["answers"]["items"]["enum"] == sorted(
        ["Robert Zemeckis", "Ron Howard", "Tom Hanks"]
    )
    assert [call.stage for call in trace.llm_calls] == ["generation"]
    assert trace.llm_calls[0].messages[0]["content"].endswith("spelled exactly as there.")


def test_the_retrievers_score_orders_the_answers_and_the_reader_breaks_ties():
    scores = {"Robert Zemeckis": 0.9, "Ron Howard": 0.1}
    trace, _, listed = answered(
        [list_reply(["Tom Hanks", "Ron Howard", "Robert Zemeckis"])],
        rank=lambda name: scores.get(name, 0.0),
    )
    assert listed == ["Tom Hanks", "Ron Howard", "Robert Zemeckis"]  # the reader's order, kept
    assert trace.answers == ["Robert Zemeckis", "Ron Howard", "Tom Hanks"]


def test_an_empty_list_is_asked_once_more_for_at_least_one_name():
    trace, llm, listed = answered([list_reply([]), list_reply(["Robert Zemeckis"])])
    assert listed == trace.answers == ["Robert Zemeckis"] and trace.reasked
    assert [call.stage for call in trace.llm_calls] == ["generation", REASK_STAGE]
    assert llm.schemas[1]["properties"]["answers"]["minItems"] == 1
    reask = trace.llm_calls[1].messages
    assert reask[-2] == {"role": "assistant", "content": '{"answers": []}'}
    assert "The question is: who directed Forrest Gump" in reask[-1]["content"]
    # without the re-ask (the paper presets), an empty list stays empty
    trace, _, listed = answered([list_reply([])], answer_reask=False)
    assert listed == trace.answers == [] and trace.answer == "(no answer)"


def test_a_reply_that_is_no_json_is_a_warning_not_an_error():
    trace, _, listed = answered(["Robert Zemeckis", "still not JSON", list_reply(["Ron Howard"])])
    assert listed == ["Ron Howard"] and trace.reasked
    assert trace.warnings and trace.warnings[0].startswith("generation: ")
    problems = [call.problem for call in trace.llm_calls]
    assert problems[0] and problems[1] and not problems[2]


@pytest.mark.parametrize("method", ["simgrag", "subgraphrag", "gnnrag", "grag"])
def test_tuned_lists_the_answers_and_paper_keeps_the_papers_prompt(method):
    spec = method_spec(method)
    assert spec.config_class()().answer_list is True
    assert spec.preset("paper").values["answer_list"] is False
