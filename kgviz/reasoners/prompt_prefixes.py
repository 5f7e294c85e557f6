"""The fixed prompt prefixes each method sends with every question of a dataset (its default
options): what `kgviz model prepare --prefixes DATASET` reads once, so that a fresh process
restores their saved states (`kgviz.llm.prefix_state`) instead of reading them. Each method's
spec names its prompts (`MethodSpec.prompts`); this module knows no method."""

from __future__ import annotations

from kgviz.llm.base import Message
from kgviz.llm.prefix_state import fixed_prefix
from kgviz.reasoners.registry import method_names, method_spec
from kgviz.reasoners.spec import load_attribute

QUESTION = "?"  # stands for the question: only the messages before it are kept


def prompt_prefixes(domain: str) -> dict[str, list[Message]]:
    """Each method prompt's fixed prefix for a dataset of `domain`, where it is long enough to
    be worth a saved state (`fixed_prefix`); a prefix two methods share is kept once."""
    found: dict[str, list[Message]] = {}
    for name in method_names():
        spec = method_spec(name)
        if not spec.prompts:
            continue
        for label, messages in load_attribute(spec.prompts)(domain, QUESTION).items():
            prefix = fixed_prefix(messages)
            if prefix is not None and prefix not in found.values():
                found[label] = prefix
    return found
