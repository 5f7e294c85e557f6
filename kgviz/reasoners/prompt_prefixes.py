"""The fixed prompt prefixes each method sends with every question of a dataset (its default
options): what `kgviz model prepare --prefixes DATASET` reads once, so that a fresh process
restores their saved states (`kgviz.llm.prefix_state`) instead of reading them."""

from __future__ import annotations

from collections.abc import Callable

from kgviz.llm.base import Message
from kgviz.llm.prefix_state import fixed_prefix
from kgviz.reasoners import prompting
from kgviz.reasoners.gnnrag.prompt import path_messages
from kgviz.reasoners.grag.prompt import qa_messages
from kgviz.reasoners.simgrag import prompts as simgrag
from kgviz.reasoners.subgraphrag.prompt import reasoning_messages

QUESTION = "?"  # stands for the question: only the messages before it are kept


def _prompts(domain: str) -> dict[str, Callable[[], list[Message]]]:
    return {
        "simgrag pattern": lambda: simgrag.pattern_messages(domain, QUESTION),
        "simgrag answer": lambda: simgrag.answer_messages("qa", QUESTION, [], listed=True),
        "subgraphrag": lambda: reasoning_messages(QUESTION, [], listed=True),
        "gnnrag": lambda: path_messages(QUESTION, [], listed=True),
        "grag": lambda: qa_messages(QUESTION, [], listed=True),
        "kaping, llm-only": lambda: prompting.answer_messages(QUESTION),
    }


def prompt_prefixes(domain: str) -> dict[str, list[Message]]:
    """Each method prompt's fixed prefix for a dataset of `domain`, where it is long enough to
    be worth a saved state (`fixed_prefix`)."""
    found = {name: fixed_prefix(build()) for name, build in _prompts(domain).items()}
    return {name: prefix for name, prefix in found.items() if prefix is not None}
