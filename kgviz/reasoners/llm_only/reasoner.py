"""LLM-only: the question straight to the LLM, no retrieval; answers are the KG names the reply
lists, else the items it states in its own words."""

from __future__ import annotations

from kgviz.reasoners.answers import NameLookup, listed_names, stated_items
from kgviz.reasoners.base import Reasoner
from kgviz.reasoners.linking import entity_names
from kgviz.reasoners.llm_only.config import LLMOnlyConfig
from kgviz.reasoners.prompting import answer_messages, generate_answer
from kgviz.trace import Trace


class LLMOnly(Reasoner[None]):
    """No retrieval (its `retrieval` time is 0): the LLM answers from what it knows."""

    name = "llm-only"
    config_class = LLMOnlyConfig
    retrieves = False
    config: LLMOnlyConfig

    def retrieve(self, trace: Trace, question: str, topic_entities: tuple[str, ...]) -> None:
        """No retrieval: the model answers from what it learned."""

    def generate(self, trace: Trace, question: str, found: None) -> None:
        names = entity_names(self.context)
        generate_answer(
            trace,
            self.context.llm,
            answer_messages(question),
            self.config.max_tokens,
            lambda reply: listed_names(reply, names),
            fallback=lambda reply: self.listed_answers(reply, names),
            answer_reask=self.config.answer_reask,
        )

    @staticmethod
    def listed_answers(reply: str, names: NameLookup) -> list[str]:
        """The KG names the reply lists, else (the model answering from memory with names the KG
        does not hold) the items it states in its own words (`answers.stated_items`), each as its
        KG name where the KG holds it. (In a run the first half finds nothing, since it is the
        answer rule itself; `kgviz rescore` applies both to rows that committed to nothing.)"""
        stated = (names.canonical(item) or item for item in stated_items(reply))  # no refusals
        return listed_names(reply, names) or list(dict.fromkeys(stated))
