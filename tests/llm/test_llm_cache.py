"""The response cache: hits, read-only replay, atomic one-file-per-request storage, off mode."""

from __future__ import annotations

import json

import pytest

from kgviz.llm.cache import CachedLLM
from kgviz.llm.errors import LLMCacheMiss, LLMError

MESSAGES = [{"role": "user", "content": "Who directed Big?"}]


def test_miss_records_then_hit_replays(scripted, tmp_path) -> None:
    inner = scripted(["Penny Marshall"])
    llm = CachedLLM(inner, tmp_path, "rw")
    first = llm.complete(MESSAGES)
    second = llm.complete(MESSAGES)
    assert len(inner.calls) == 1
    assert (first.cached, second.cached) == (False, True)
    assert second.text == "Penny Marshall"
    assert (second.prompt_tokens, second.latency_s) == (first.prompt_tokens, first.latency_s)


def test_one_json_file_per_request_and_no_temp_files(scripted, tmp_path) -> None:
    llm = CachedLLM(scripted(['{"a": 1}']), tmp_path, "rw")
    llm.complete(MESSAGES, schema={"type": "object"})
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) == 1 and files[0].suffix == ".json"
    assert files[0].parent.name == files[0].name[:2]  # sharded by key prefix
    record = json.loads(files[0].read_text())
    assert record["request"]["messages"] == MESSAGES
    assert record["request"]["options"]["temperature"] == 0.0
    assert record["completion"]["parsed"] == {"a": 1}


def test_key_covers_schema_options_model_and_defaults(scripted, tmp_path) -> None:
    inner = scripted(['{"a": 1}'])
    llm = CachedLLM(inner, tmp_path, "rw")
    llm.complete(MESSAGES)
    llm.complete(MESSAGES, schema={"type": "object"})
    llm.complete(MESSAGES, max_tokens=7)
    CachedLLM(scripted(["x"], model="other"), tmp_path, "rw").complete(MESSAGES)
    CachedLLM(scripted(["x"], max_tokens=9), tmp_path, "rw").complete(MESSAGES)
    assert len(list(tmp_path.rglob("*.json"))) == 5


def test_read_only_replays_and_misses_clearly(scripted, tmp_path) -> None:
    CachedLLM(scripted(["Penny Marshall"]), tmp_path, "rw").complete(MESSAGES)
    inner = scripted(["never"])
    replay = CachedLLM(inner, tmp_path, "ro")
    assert replay.complete(MESSAGES).text == "Penny Marshall"
    with pytest.raises(LLMCacheMiss, match="read-only cache"):
        replay.complete([{"role": "user", "content": "another question"}])
    assert inner.calls == []


def test_off_always_calls_and_writes_nothing(scripted, tmp_path) -> None:
    inner = scripted(["x"])
    llm = CachedLLM(inner, tmp_path / "c", "off")
    llm.complete(MESSAGES)
    llm.complete(MESSAGES)
    assert len(inner.calls) == 2 and not (tmp_path / "c").exists()


def test_corrupt_entry_is_recorded_again(scripted, tmp_path) -> None:
    inner = scripted(["x"])
    llm = CachedLLM(inner, tmp_path, "rw")
    llm.complete(MESSAGES)
    entry = next(tmp_path.rglob("*.json"))
    entry.write_text("{torn")
    assert llm.complete(MESSAGES).cached is False
    assert len(inner.calls) == 2 and json.loads(entry.read_text())["completion"]["text"] == "x"


def test_errors_are_not_cached(tmp_path) -> None:
    from kgviz.llm.base import Backend

    class Failing(Backend):
        name = "failing"

        def _generate(self, messages, schema, options):
            raise LLMError("down")

    with pytest.raises(LLMError, match="down"):
        CachedLLM(Failing("m"), tmp_path, "rw").complete(MESSAGES)
    assert not list(tmp_path.rglob("*.json"))


def test_unknown_mode_and_option(scripted, tmp_path) -> None:
    with pytest.raises(LLMError, match="cache mode"):
        CachedLLM(scripted(["x"]), tmp_path, "write")
    with pytest.raises(LLMError, match="unknown LLM option"):
        CachedLLM(scripted(["x"]), tmp_path).complete(MESSAGES, temprature=1)
