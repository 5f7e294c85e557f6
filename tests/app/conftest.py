"""Fixtures for the app tests: sessions over the demo KG with a scripted LLM (no model needed)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from kgviz.datasets import get_dataset
from kgviz.embed.kg_index import KGIndex
from kgviz.llm.base import LLM, Completion
from kgviz.reasoners.base import ReasonerContext
from kgviz.reasoners.simgrag import prompts
from kgviz.session import Session

TOM_HANKS_PATTERN = json.dumps({
    "phrases": ["Tom Hanks starred in a movie", "it was directed by someone"],
    "triples": [["UNKNOWN movie 1", "starred actors", "Tom Hanks"],
                ["UNKNOWN movie 1", "directed by", "UNKNOWN person 1"]]})


class ScriptedLLM(LLM):
    """Replies with a fixed pattern to SimGRAG's pattern prompt and `answer` to anything else."""

    name, model = "scripted", "test"

    def __init__(self, answer: str = "Robert Zemeckis", pattern: str = TOM_HANKS_PATTERN) -> None:
        self.answer, self.pattern = answer, pattern

    def complete(self, messages, schema=None, **options) -> Completion:
        if schema is prompts.PATTERN_SCHEMA:
            text = self.pattern
        elif schema is not None:
            text = json.dumps({"reason": "graph 1", "answer": [self.answer]})
        else:
            text = self.answer
        return Completion(text, None, 10, 5, 0.01, self.name, self.model)

    def options(self, **overrides):
        return overrides


@pytest.fixture
def scripted_llm() -> type[ScriptedLLM]:
    """The scripted LLM class (test modules cannot import conftest in importlib mode)."""
    return ScriptedLLM


@pytest.fixture(scope="session")
def demo_dataset():
    dataset = get_dataset("demo")
    dataset.kg  # noqa: B018  (load once for every test)
    return dataset


@pytest.fixture(scope="session")
def demo_index(demo_dataset) -> KGIndex:
    return KGIndex.build(demo_dataset.kg)


@pytest.fixture
def scripted_sessions(demo_dataset, demo_index) -> Callable[[LLM], Callable[..., Session]]:
    """`factory(llm)`: a session factory for the app whose sessions use `llm` (the demo's vector
    index is built once for all tests)."""
    def factory(llm: LLM) -> Callable[..., Session]:
        def open_scripted(dataset_name: str, llm_spec: str, cache_mode: str) -> Session:
            if dataset_name == "demo":
                context = ReasonerContext(demo_dataset, llm, demo_index)
            else:
                context = ReasonerContext(get_dataset(dataset_name), llm)
            return Session(context.dataset, context, f"scripted ({llm_spec})")
        return open_scripted
    return factory
