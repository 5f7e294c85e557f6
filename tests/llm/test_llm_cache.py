"""The response cache around the real offline 0.5B model: hits, read-only replay, atomic
one-file-per-request storage, off mode."""

from __future__ import annotations

import json

import pytest

from kgviz.llm.cache import CachedLLM
from kgviz.llm.errors import LLMCacheMiss, LLMError
from kgviz.llm.local_key import KEY_NAME

MESSAGES = [{"role": "user", "content": "Who directed Big?"}]
DIRECTOR_SCHEMA = {
    "type": "object",
    "properties": {"director": {"type": "string"}},
    "required": ["director"],
}


def test_miss_records_then_hit_replays(counting, tmp_path) -> None:
    inner = counting()
    llm = CachedLLM(inner, tmp_path, "rw")
    first = llm.complete(MESSAGES)
    second = llm.complete(MESSAGES)
    assert len(inner.calls) == 1
    assert (first.cached, second.cached) == (False, True)
    assert second.text == first.text and first.text.strip()
    assert (second.prompt_tokens, second.latency_s) == (first.prompt_tokens, first.latency_s)


def test_one_json_file_per_request_and_no_temp_files(counting, tmp_path) -> None:
    reply = CachedLLM(counting(max_tokens=40), tmp_path, "rw").complete(
        MESSAGES, schema=DIRECTOR_SCHEMA
    )
    files = [p for p in tmp_path.rglob("*") if p.is_file() and p.name != KEY_NAME]
    assert len(files) == 1 and files[0].suffix == ".json"
    assert (tmp_path / KEY_NAME).stat().st_mode & 0o777 == 0o600  # the signing key: user only
    assert files[0].parent.name == files[0].name[:2]  # sharded by key prefix
    record = json.loads(files[0].read_text())
    assert record["request"]["messages"] == MESSAGES
    assert record["request"]["options"]["temperature"] == 0.0
    assert record["completion"]["parsed"] == reply.parsed and "director" in reply.parsed


def test_key_covers_schema_options_model_and_defaults(counting, model_1_5b, tmp_path) -> None:
    inner = counting()
    llm = CachedLLM(inner, tmp_path, "rw")
    llm.complete(MESSAGES)
    llm.complete(MESSAGES, schema=DIRECTOR_SCHEMA, max_tokens=40)
    llm.complete(MESSAGES, max_tokens=7)
    CachedLLM(counting("qwen2.5-coder-1.5b"), tmp_path, "rw").complete(MESSAGES)
    CachedLLM(counting(max_tokens=9), tmp_path, "rw").complete(MESSAGES)
    assert len(list(tmp_path.rglob("*.json"))) == 5 and len(inner.calls) == 3


def test_a_reply_cut_at_max_tokens_says_so_and_replays_so(counting, tmp_path) -> None:
    many = [{"role": "user", "content": "Name ten films by Steven Spielberg."}]
    llm = CachedLLM(counting(max_tokens=64), tmp_path, "rw")
    whole, cut = llm.complete(MESSAGES), llm.complete(many, max_tokens=3)
    assert whole.completion_tokens < 64 and cut.completion_tokens == 3
    assert (whole.truncated, cut.truncated) == (False, True)
    replay = CachedLLM(counting(max_tokens=64), tmp_path, "ro")
    assert (replay.complete(MESSAGES).truncated, replay.complete(many, max_tokens=3).truncated) == (
        False,
        True,
    )


def test_read_only_replays_and_misses_clearly(counting, tmp_path) -> None:
    recorded = CachedLLM(counting(), tmp_path, "rw").complete(MESSAGES)
    inner = counting()
    replay = CachedLLM(inner, tmp_path, "ro")
    assert replay.complete(MESSAGES).text == recorded.text
    with pytest.raises(LLMCacheMiss, match="read-only cache"):
        replay.complete([{"role": "user", "content": "another question"}])
    assert inner.calls == []


def test_off_always_calls_and_writes_nothing(counting, tmp_path) -> None:
    inner = counting()
    llm = CachedLLM(inner, tmp_path / "c", "off")
    llm.complete(MESSAGES)
    llm.complete(MESSAGES)
    assert len(inner.calls) == 2 and not (tmp_path / "c").exists()


def test_corrupt_entry_is_recorded_again(counting, tmp_path) -> None:
    inner = counting()
    llm = CachedLLM(inner, tmp_path, "rw")
    llm.complete(MESSAGES)
    entry = next(tmp_path.rglob("*.json"))
    entry.write_text("{torn")
    again = llm.complete(MESSAGES)
    assert again.cached is False and len(inner.calls) == 2
    assert json.loads(entry.read_text())["completion"]["text"] == again.text


def test_errors_are_not_cached(tmp_path) -> None:
    from kgviz.llm.base import Backend

    class Failing(Backend):
        """A stand-in for error handling: a backend whose every call fails."""

        name = "failing"

        def _generate(self, messages, schema, options):
            raise LLMError("down")

    with pytest.raises(LLMError, match="down"):
        CachedLLM(Failing("m"), tmp_path, "rw").complete(MESSAGES)
    assert not list(tmp_path.rglob("*.json"))


def test_unknown_mode_and_option(counting, tmp_path) -> None:
    with pytest.raises(LLMError, match="cache mode"):
        CachedLLM(counting(), tmp_path, "write")
    with pytest.raises(LLMError, match="unknown LLM option"):
        CachedLLM(counting(), tmp_path).complete(MESSAGES, temprature=1)
