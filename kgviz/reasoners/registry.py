"""Method names (the CLI contract) mapped to Reasoner classes, imported only when asked for.

The built-in methods are known from the start; `register_method` adds others (plugins)."""

from __future__ import annotations

import importlib
from typing import Any

from kgviz.errors import UnknownNameError
from kgviz.reasoners.base import Reasoner, ReasonerContext

_METHODS: dict[str, str] = {
    "simgrag": "kgviz.reasoners.simgrag.reasoner:SimGRAG",
    "llm-only": "kgviz.reasoners.llm_only:LLMOnly",
    "kaping": "kgviz.reasoners.kaping:Kaping",
    "subgraphrag": "kgviz.reasoners.subgraphrag.reasoner:SubgraphRAG",
    "grag": "kgviz.reasoners.grag.reasoner:GRAG",
    "gnnrag": "kgviz.reasoners.gnnrag.reasoner:GNNRAG",
}

# How tables and views name a method where the name alone would overstate it.
_LABELS: dict[str, str] = {
    "grag": "grag (hard prompt)",  # the paper's graph-token soft prompt needs a white-box LLM
}


def method_label(name: str) -> str:
    """The name tables and views show for method `name`."""
    return _LABELS.get(name, name)


def register_method(name: str, target: str) -> None:
    """Register `name` as `"package.module:ClassName"`."""
    _METHODS[name] = target


def method_names() -> list[str]:
    return list(_METHODS)


def reasoner_class(name: str) -> type[Reasoner]:
    target = _METHODS.get(name)
    if target is None:
        raise UnknownNameError(f"unknown method {name!r}; available: {', '.join(_METHODS)}")
    module_name, class_name = target.split(":")
    return getattr(importlib.import_module(module_name), class_name)


def make_reasoner(name: str, context: ReasonerContext, **config: Any) -> Reasoner:
    """Build the reasoner `name`; `config` overrides fields of its config dataclass."""
    return reasoner_class(name).from_config(context, **config)
