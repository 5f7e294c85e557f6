"""LLM-only: the question straight to the LLM, no retrieval; answers are KG names in the reply."""

from __future__ import annotations

import re
from dataclasses import dataclass

from kgviz.reasoners.base import Reasoner, ReasonerConfig
from kgviz.reasoners.linking import EntityNames, entity_names
from kgviz.reasoners.prompting import answer_messages, generate_answer
from kgviz.trace import Trace

SEPARATORS = re.compile(r"\s*(?:[,;/|]|\band\b|&)\s*", re.IGNORECASE)
BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s*")
EDGE_NOISE = " \t\"'`*.:!?()[]"


def answer_entities(answer_text: str, names: EntityNames) -> list[str]:
    """KG entity names in a list-like reply, in order: each line whole when it is a name, else
    its pieces split on commas, semicolons and "and" (exact, then normalised name match)."""
    found: dict[str, None] = {}
    for line in answer_text.splitlines():
        line = BULLET.sub("", line).strip(EDGE_NOISE)
        whole = names.canonical(line) if line else None
        pieces = [line] if whole else SEPARATORS.split(line)
        for piece in (piece.strip(EDGE_NOISE) for piece in pieces):
            name = names.canonical(piece) if piece else None
            if name is not None:
                found.setdefault(name)
    return list(found)


@dataclass
class LLMOnlyConfig(ReasonerConfig):
    max_tokens: int = 128

    def __post_init__(self) -> None:
        self.require_positive("llm-only", "max_tokens")


class LLMOnly(Reasoner):
    """No retrieval (its `retrieval` time is 0): the LLM answers from what it knows."""

    name = "llm-only"
    config_class = LLMOnlyConfig
    retrieves = False
    config: LLMOnlyConfig

    def retrieve(self, trace: Trace, question: str, topic_entities: tuple[str, ...]) -> None:
        """No retrieval: the model answers from what it learned."""

    def generate(self, trace: Trace, question: str, found: None) -> None:
        answer = generate_answer(trace, self.context.llm, answer_messages(question), self.config.max_tokens)
        trace.answers = answer_entities(answer, entity_names(self.context))
