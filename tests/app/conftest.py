"""Fixtures for the app tests: sessions over the demo KG with the real offline LLM.

What is real: the demo dataset and KG, the sentence encoder and the demo's vector index (built
once per test session), every reasoner, and the LLM: the in-process llama.cpp Qwen2.5-Coder-1.5B
(`local_llm` of tests/conftest.py, loaded once per worker) behind the reply cache in "rw" mode.
A cached reply is the real model's reply recorded the first time that exact request was made, so
a warm rerun replays it instead of generating it again; a cold run generates every reply. No fake
LLM is defined anywhere in these tests: the error-handling test passes `demo_sessions` the real
Ollama backend pointed at a port where no server answers.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from kgviz.datasets import get_dataset
from kgviz.embed.kg_index import KGIndex
from kgviz.llm.base import LLM
from kgviz.reasoners.base import ReasonerContext
from kgviz.session import Session


@pytest.fixture(scope="session")
def demo_dataset():
    dataset = get_dataset("demo")
    dataset.kg  # noqa: B018  (load once for every test)
    return dataset


@pytest.fixture(scope="session")
def demo_index(demo_dataset) -> KGIndex:
    return KGIndex.build(demo_dataset.kg)


@pytest.fixture
def demo_sessions(demo_dataset, demo_index, local_llm) -> Callable[..., Callable[..., Session]]:
    """`factory(llm=None)`: a session factory for the app whose sessions use `llm` (default: the
    real offline model); the demo's vector index is built once for all tests, other datasets
    (e.g. a `custom:` folder) get their own."""

    def factory(llm: LLM | None = None) -> Callable[..., Session]:
        chosen = local_llm if llm is None else llm

        def open_session(dataset_name: str, llm_spec: str, cache_mode: str) -> Session:
            if dataset_name == "demo":
                context = ReasonerContext(demo_dataset, chosen, demo_index)
            else:
                context = ReasonerContext(get_dataset(dataset_name), chosen)
            return Session(context.dataset, context, f"test session: {chosen.describe()}")

        return open_session

    return factory
