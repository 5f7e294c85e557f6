"""SimGRAG's answer prompt in its paper's form: 12 examples, evidence written as the paper
writes it, and examples whose answers the reasoner's own reading takes from them."""

from __future__ import annotations

from kgviz.reasoners.answers import evidence_entities, mentioned_entities
from kgviz.reasoners.simgrag.paper_answers import (
    MOVIE_ANSWERS,
    evidences,
    paper_answer_messages,
)


def test_the_prompt_has_the_notes_then_twelve_examples_then_the_query():
    messages = paper_answer_messages(
        "movies", "who directed Heat", [[("Heat", "directed_by", "Michael Mann")]]
    )
    assert messages[0]["role"] == "system" and "Notes)" in messages[0]["content"]
    shots = messages[1:-1]
    assert len(shots) == 24 and [m["role"] for m in shots[:2]] == ["user", "assistant"]
    assert messages[-1]["content"].startswith('query: "who directed Heat"\nevidences: {')
    assert paper_answer_messages("paths", "q", [])[1:-1] == shots  # no examples of its own


def test_evidence_is_written_as_the_paper_writes_it():
    text = evidences(
        [[("Heat", "directed_by", "Michael Mann")], [("A", "r", "B"), ("B", "s", "C")]]
    )
    assert text == (
        '{\n"graph [1]": [\n("Heat", "directed_by", "Michael Mann")\n],\n'
        '"graph [2]": [\n("A", "r", "B"),\n("B", "s", "C")\n]\n}'
    )
    assert evidences([]) == "{}"


def test_every_example_answers_with_entities_its_graphs_hold():
    """Read as the reasoner reads a reply (evidence entities it names, the question's aside),
    each example's answer gives entities, and it cites its graphs."""
    for question, graphs, answer in MOVIE_ANSWERS:
        names = evidence_entities(t for graph in graphs for t in graph)
        asked = set(mentioned_entities(question, set(names)))
        taken = [n for n in mentioned_entities(answer, set(names)) if n not in asked]
        assert taken, question
        assert answer.startswith("According to graph")
