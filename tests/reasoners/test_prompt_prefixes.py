"""Every method's prompt puts its fixed part first, byte for byte the same for every question,
and all that is the question's own (the question, its evidence) in the last message: what a
server's prefix cache (Ollama, an OpenAI-compatible server) and kgviz's saved prefix states
reuse."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from kgviz.llm.base import Message
from kgviz.reasoners import prompting
from kgviz.reasoners.gnnrag import prompt as gnnrag
from kgviz.reasoners.grag import prompt as grag
from kgviz.reasoners.simgrag import prompts as simgrag
from kgviz.reasoners.simgrag.paper_answers import paper_answer_messages
from kgviz.reasoners.subgraphrag import prompt as subgraphrag

FIRST = ("who directed Heat", ("Heat", "directed_by", "Michael Mann"))
SECOND = ("what films did Jane Campion write", ("The Piano", "written_by", "Jane Campion"))

BUILDERS: dict[str, Callable[[str, tuple[str, str, str]], list[Message]]] = {
    "llm-only": lambda q, t: prompting.answer_messages(q),
    "kaping": lambda q, t: prompting.answer_messages(q, [f"({', '.join(t)})"]),
    "simgrag pattern": lambda q, t: simgrag.pattern_messages("movies", q),
    "simgrag answer": lambda q, t: simgrag.answer_messages("qa", q, [[t]]),
    "simgrag answer, paper rules": lambda q, t: simgrag.answer_messages(
        "qa", q, [[t]], own_knowledge=False
    ),
    "simgrag verify": lambda q, t: simgrag.answer_messages("verify", q, [[t]]),
    "simgrag answer, paper form": lambda q, t: paper_answer_messages("movies", q, [[t]]),
    "subgraphrag": lambda q, t: subgraphrag.reasoning_messages(q, [t]),
    "gnnrag": lambda q, t: gnnrag.path_messages(q, [" -> ".join(t)]),
    "grag": lambda q, t: grag.qa_messages(q, [(t[0], " ".join(t))]),
    "grag stance": lambda q, t: grag.stance_messages(q, [(t[0], " ".join(t))]),
}


@pytest.mark.parametrize("name", BUILDERS)
def test_the_fixed_part_comes_first_and_the_question_last(name: str) -> None:
    build = BUILDERS[name]
    one, two = build(*FIRST), build(*SECOND)
    assert len(one) >= 2 and one[0]["role"] == "system"
    assert json.dumps(one[:-1], ensure_ascii=False) == json.dumps(two[:-1], ensure_ascii=False)
    assert one[-1]["role"] == "user" and FIRST[0] in one[-1]["content"]
    assert all(FIRST[0] not in m["content"] for m in one[:-1])
