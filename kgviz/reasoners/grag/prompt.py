"""GRAG's hard prompt: the question after the hierarchical descriptions of its pruned ego-graphs."""

from __future__ import annotations

from collections.abc import Sequence

from kgviz.llm.base import Message
from kgviz.reasoners.grag.describe import Style
from kgviz.reasoners.prompting import LIST_SYSTEM, SYSTEM_PROMPT

GRAPH_GUIDES = {
    "triples": (
        "Knowledge graph excerpts follow. Each begins with a quoted entity; an indented "
        "'-' line is a fact (head, relation, tail) joining the entity above it to a new "
        "entity, which its own deeper lines continue from; a '+' line is a further fact "
        "about the entity above it."
    ),
    "compact": (
        "Knowledge graph excerpts follow. Each begins with an entity. An indented line "
        "'→ relation: X' says the entity above it has that relation to X, and "
        "'← relation: X' says X has that relation to the entity above it; X's own deeper "
        "lines continue from X. A '+ relation: X' line is a further fact of the entity above."
    ),
}
STANCE_SYSTEM = (
    "You decide whether two arguments support or counter each other. Reply with "
    "one word: support or counter."
)


def graph_context(descriptions: Sequence[tuple[str, str]], style: Style) -> list[str]:
    """Lines introducing each `(centre, description)` pair, written in `style`."""
    lines = [GRAPH_GUIDES[style]]
    for number, (centre, text) in enumerate(descriptions, 1):
        lines += ["", f"Graph {number}, around {centre}:", text]
    return lines


def qa_messages(
    question: str,
    descriptions: Sequence[tuple[str, str]],
    style: Style = "compact",
    listed: bool = False,
) -> list[Message]:
    """The question after the descriptions (written in `style`); `listed` asks for the JSON
    answer list instead of comma-separated names."""
    context = [*graph_context(descriptions, style), ""] if descriptions else []
    user = "\n".join([*context, f"Question: {question}", "Answer:"])
    system = LIST_SYSTEM if listed else SYSTEM_PROMPT
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def stance_messages(
    question: str, descriptions: Sequence[tuple[str, str]], style: Style = "compact"
) -> list[Message]:
    lines = [*graph_context(descriptions, style), "", question, "Answer (support or counter):"]
    user = "\n".join(lines)
    return [{"role": "system", "content": STANCE_SYSTEM}, {"role": "user", "content": user}]


def method_prompts(domain: str, question: str) -> dict[str, list[Message]]:
    """GRAG's question-answering prompt as the tuned preset sends it (`MethodSpec.prompts`)."""
    return {"grag": qa_messages(question, [], listed=True)}
