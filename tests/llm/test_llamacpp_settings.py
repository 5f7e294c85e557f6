"""The offline backend's threads and slots: defaults, environment overrides and bad values
(nothing is loaded here)."""

import pytest

from kgviz.llm.errors import LLMError
from kgviz.llm.llamacpp_backend import (
    MAX_DEFAULT_THREADS,
    LlamaCppBackend,
    default_slots,
    default_threads,
    usable_cores,
)


def test_defaults_use_the_cores_and_one_slot(monkeypatch):
    monkeypatch.delenv("KGVIZ_LLM_THREADS", raising=False)
    monkeypatch.delenv("KGVIZ_LLM_SLOTS", raising=False)
    assert default_threads() == min(usable_cores(), MAX_DEFAULT_THREADS) >= 1
    assert default_slots() == 1
    backend = LlamaCppBackend()
    assert backend.slots == backend.parallel_requests == 1
    assert "1 slot(s)" in backend.describe()


def test_the_environment_and_arguments_override(monkeypatch):
    monkeypatch.setenv("KGVIZ_LLM_THREADS", "3")
    monkeypatch.setenv("KGVIZ_LLM_SLOTS", "2")
    assert LlamaCppBackend().threads == 3 and LlamaCppBackend().parallel_requests == 2
    backend = LlamaCppBackend(threads=1, slots=4)
    assert (backend.threads, backend.slots, backend.parallel_requests) == (1, 4, 4)


@pytest.mark.parametrize("value", ["0", "-1", "two", ""])
def test_a_bad_value_is_a_clear_error(monkeypatch, value):
    monkeypatch.setenv("KGVIZ_LLM_SLOTS", value)
    with pytest.raises(LLMError, match="KGVIZ_LLM_SLOTS must be a positive integer"):
        default_slots()
