"""The offline backend's threads, slots and devices: defaults, environment overrides and bad
values (nothing is loaded here)."""

import pytest

from kgviz.llm.errors import LLMError
from kgviz.llm.llamacpp_backend import (
    MAX_DEFAULT_THREADS,
    LlamaCppBackend,
    default_slots,
    default_threads,
    is_gpu,
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


def test_devices_are_told_apart_by_type():
    """llama.cpp's CPU device is no GPU (on a CPU alone the model loads with the CPU-only
    settings); a GPU of either kind, as `get_device_info()` lists one, turns them off."""
    xllamacpp = pytest.importorskip("xllamacpp")
    kinds = xllamacpp.ggml_backend_dev_type
    devices = xllamacpp.get_device_info()
    cpus = [d for d in devices if d["type"] == kinds.GGML_BACKEND_DEVICE_TYPE_CPU]
    assert cpus and not any(map(is_gpu, cpus))
    gpu = {**devices[0], "type": kinds.GGML_BACKEND_DEVICE_TYPE_GPU}
    igpu = {**devices[0], "type": kinds.GGML_BACKEND_DEVICE_TYPE_IGPU}
    accel = {**devices[0], "type": kinds.GGML_BACKEND_DEVICE_TYPE_ACCEL}
    assert is_gpu(gpu) and is_gpu(igpu) and not is_gpu(accel)
