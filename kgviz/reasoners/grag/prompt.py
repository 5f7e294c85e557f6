"""GRAG's hard prompt: the question after the hierarchical descriptions of its pruned ego-graphs."""

from __future__ import annotations

from collections.abc import Sequence

from kgviz.llm.base import Message
from kgviz.reasoners.prompting import LIST_SYSTEM, SYSTEM_PROMPT

GRAPH_GUIDE = (
    "Knowledge graph excerpts follow. Each begins with a quoted entity; an indented "
    "'-' line is a fact (head, relation, tail) joining the entity above it to a new "
    "entity, which its own deeper lines continue from; a '+' line is a further fact "
    "about the entity above it."
)
STANCE_SYSTEM = (
    "You decide whether two arguments support or counter each other. Reply with "
    "one word: support or counter."
)


def graph_context(descriptions: Sequence[tuple[str, str]]) -> list[str]:
    """Lines introducing each `(centre, description)` pair."""
    lines = [GRAPH_GUIDE]
    for number, (centre, text) in enumerate(descriptions, 1):
        lines += ["", f"Graph {number}, around {centre}:", text]
    return lines


def qa_messages(
    question: str, descriptions: Sequence[tuple[str, str]], listed: bool = False
) -> list[Message]:
    """The question after the descriptions; `listed` asks for the JSON answer list instead of
    comma-separated names."""
    context = [*graph_context(descriptions), ""] if descriptions else []
    user = "\n".join([*context, f"Question: {question}", "Answer:"])
    system = LIST_SYSTEM if listed else SYSTEM_PROMPT
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def stance_messages(question: str, descriptions: Sequence[tuple[str, str]]) -> list[Message]:
    user = "\n".join([*graph_context(descriptions), "", question, "Answer (support or counter):"])
    return [{"role": "system", "content": STANCE_SYSTEM}, {"role": "user", "content": user}]


def method_prompts(domain: str, question: str) -> dict[str, list[Message]]:
    """GRAG's question-answering prompt as the tuned preset sends it (`MethodSpec.prompts`)."""
    return {"grag": qa_messages(question, [], listed=True)}
