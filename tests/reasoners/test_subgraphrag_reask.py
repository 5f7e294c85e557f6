"""SubgraphRAG's one re-ask of a reply whose `ans:` lines commit to nothing: it says what was
wrong with them and restates the question."""

import pytest

from kgviz.reasoners.prompting import reask_messages
from kgviz.reasoners.subgraphrag.prompt import ans_reask, committed_answers

QUESTION = "who directed the films written by Leonard Praskins"
TOPICS = ["Leonard Praskins"]
EVIDENCE = [
    ("The Champ", "written_by", "Leonard Praskins"),
    ("The Champ", "directed_by", "King Vidor"),
    ("Cimarron", "written_by", "Leonard Praskins"),
    ("Cimarron", "directed_by", "Wesley Ruggles"),
]


@pytest.mark.parametrize(
    "reply, problem",
    [
        ("The Champ was written by Leonard Praskins.", "Your reply has no `ans:` line."),
        (
            "Leonard Praskins wrote The Champ.\nans: Leonard Praskins",
            "Your `ans:` lines name Leonard Praskins, which the question itself names;",
        ),
        ("ans: Frank Capra", "Your `ans:` lines name nothing from the triples."),
        ("ans: not available", "Your `ans:` lines give no answer."),
    ],
)
def test_the_reask_says_what_was_wrong_and_restates_the_question(reply, problem):
    assert committed_answers(reply, EVIDENCE, TOPICS) == []
    text = ans_reask(QUESTION, reply, EVIDENCE, TOPICS)
    assert text.startswith(problem)
    assert f"The question is: {QUESTION}\n" in text and "`ans: <name>`" in text


def test_a_reply_naming_an_answer_commits_without_a_reask():
    reply = "ans: Leonard Praskins\nans: King Vidor"
    assert committed_answers(reply, EVIDENCE, TOPICS) == ["King Vidor"]


def test_a_reask_may_leave_the_failed_reply_out():
    question = [{"role": "user", "content": QUESTION}]
    shown = reask_messages(question, "ans: Leonard Praskins", "Reply again.")
    assert [m["role"] for m in shown] == ["user", "assistant", "user"]
    hidden = reask_messages(question, None, "Reply again.")
    assert hidden == [*question, {"role": "user", "content": "Reply again."}]
