"""SimGRAG's one re-ask of an answer that names no evidence entity but the question's own: it
restates the question, says what was wrong and lists the subgraphs' other entities."""

import pytest

from kgviz.llm.json_completion import complete_json
from kgviz.reasoners.prompting import reask_messages
from kgviz.reasoners.simgrag import prompts

QUESTION = "which films have the same actor of Dandelion"
GRAPHS = [
    [("Dandelion", "starred_actors", "Taryn Manning"), (film, "starred_actors", "Taryn Manning")]
    for film in ("The Speed of Thought", "Crossroads", "Zombie Apocalypse")
]
OTHERS = ["Taryn Manning", "The Speed of Thought", "Crossroads", "Zombie Apocalypse"]


@pytest.mark.parametrize(
    "listed, asked, problem",
    [
        ([], [], "Your answer list is empty."),
        (["Dandelion"], ["Dandelion"], "Your answer lists Dandelion, which the question itself"),
        (["Casablanca"], [], "Your answer list names no entity from the subgraphs."),
    ],
)
def test_the_reask_says_what_was_wrong_and_restates_the_question(listed, asked, problem):
    text = prompts.answer_reask(QUESTION, listed, asked, OTHERS)
    assert text.startswith(problem)
    assert f"The question is: {QUESTION}" in text
    assert "also name: Taryn Manning, The Speed of Thought, Crossroads, Zombie Apocalypse." in text
    assert "also name" not in prompts.answer_reask(QUESTION, listed, asked, [])


@pytest.mark.slow
def test_the_real_model_answers_the_films_after_the_reask(tmp_cache, local_llm):
    """Recorded from a held-aside 2-hop run: the offline model first lists the question's own
    film; the re-ask gets the films that share its actor (the reasoner drops the question's own
    entities from any list)."""
    llm = local_llm
    messages = prompts.answer_messages("qa", QUESTION, GRAPHS)
    first = complete_json(llm, messages, prompts.answer_schema("qa"))
    assert first.parsed["answer"] == ["Dandelion"]
    reask = prompts.answer_reask(QUESTION, ["Dandelion"], ["Dandelion"], OTHERS)
    again = complete_json(
        llm, reask_messages(messages, first.text, reask), prompts.answer_schema("qa")
    )
    assert set(again.parsed["answer"]) - {"Dandelion"} == {
        "The Speed of Thought",
        "Crossroads",
        "Zombie Apocalypse",
    }
