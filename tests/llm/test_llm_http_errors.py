"""Error paths of the HTTP backends and the `--llm` selection.

A stub HTTP server (`stub` fixture, http.server on loopback) stands in for Ollama or an
OpenAI-compatible server ONLY to produce the failures a real server produces rarely or slowly:
404 for an unknown model, a hung reply, a malformed body. The happy paths run against real
servers in test_llm_servers.py.
"""

from __future__ import annotations

import pytest

from kgviz.errors import UnknownNameError
from kgviz.llm.cache import CachedLLM
from kgviz.llm.errors import LLMError, LLMOutputError, LLMTimeout, LLMUnavailable
from kgviz.llm.llamacpp_backend import LlamaCppBackend
from kgviz.llm.ollama_backend import OllamaBackend
from kgviz.llm.openai_backend import OpenAIBackend
from kgviz.llm.select import choose_llm, doctor_report

MESSAGES = [{"role": "user", "content": "hi"}]
OLLAMA_CHAT_OK = {
    "model": "m",
    "created_at": "2025-01-01T00:00:00Z",
    "done": True,
    "message": {"role": "assistant", "content": '{"a": 1}'},
    "prompt_eval_count": 12,
    "eval_count": 5,
}
TAGS = {"models": [{"name": "qwen2.5-coder:1.5b", "model": "qwen2.5-coder:1.5b"}]}


def test_ollama_refused_connection_says_how_to_start_it(closed_url) -> None:
    with pytest.raises(
        LLMUnavailable, match=f"no Ollama server at {closed_url}: start it with `ollama serve`"
    ):
        OllamaBackend("m", host=closed_url).complete(MESSAGES)


def test_ollama_unknown_model_says_how_to_pull_it(stub) -> None:
    stub.route("/api/chat", 404, {"error": "model 'llama9' not found"})
    with pytest.raises(LLMUnavailable, match="has no model 'llama9': run `ollama pull llama9`"):
        OllamaBackend("llama9", host=stub.url).complete(MESSAGES)


def test_ollama_timeout(stub) -> None:
    stub.route("/api/chat", 200, OLLAMA_CHAT_OK, delay=2.0)
    with pytest.raises(LLMTimeout, match="within 0.3 s"):  # read timeout or deadline, first
        OllamaBackend("m", host=stub.url, timeout_s=0.3).complete(MESSAGES)


@pytest.mark.parametrize("body", [b"<html>oops</html>", {"message": 3}, {"done": True}])
def test_ollama_malformed_reply(stub, body) -> None:
    stub.route("/api/chat", 200, body)
    with pytest.raises(LLMError, match=f"malformed reply from Ollama at {stub.url}"):
        OllamaBackend("m", host=stub.url).complete(MESSAGES)


def test_ollama_other_server_error(stub) -> None:
    stub.route("/api/chat", 500, {"error": "out of memory"})
    with pytest.raises(LLMError, match="answered HTTP 500: out of memory"):
        OllamaBackend("m", host=stub.url).complete(MESSAGES)


def test_ollama_reply_and_counts_through_the_stub(stub) -> None:
    stub.route("/api/chat", 200, OLLAMA_CHAT_OK)
    completion = OllamaBackend("m", host=stub.url).complete(MESSAGES, schema={"type": "object"})
    assert completion.parsed == {"a": 1}
    assert (completion.prompt_tokens, completion.completion_tokens) == (12, 5)


def test_reply_cut_at_max_tokens_is_named(stub) -> None:
    stub.route(
        "/api/chat",
        200,
        {
            **OLLAMA_CHAT_OK,
            "done_reason": "length",
            "message": {"role": "assistant", "content": '{"a": [1, 2'},
        },
    )
    with pytest.raises(LLMOutputError, match="cut at max_tokens=16") as info:
        OllamaBackend("m", host=stub.url).complete(
            MESSAGES, schema={"type": "object"}, max_tokens=16
        )
    assert info.value.raw == '{"a": [1, 2'


def test_openai_error_paths(stub, closed_url) -> None:
    with pytest.raises(LLMUnavailable, match="no OpenAI-compatible server"):
        OpenAIBackend(closed_url + "/v1", "m").complete(MESSAGES)
    stub.route("/v1/chat/completions", 404, {"error": {"message": "model not found"}})
    with pytest.raises(LLMUnavailable, match="has no model 'm'"):
        OpenAIBackend(stub.url + "/v1", "m").complete(MESSAGES)
    stub.route("/v1/chat/completions", 200, {"choices": []})
    with pytest.raises(LLMError, match="malformed reply"):
        OpenAIBackend(stub.url + "/v1", "m").complete(MESSAGES)
    stub.route("/v1/chat/completions", 200, b"not json")
    with pytest.raises(LLMError, match="malformed reply .*not JSON"):
        OpenAIBackend(stub.url + "/v1", "m").complete(MESSAGES)
    stub.route("/v1/chat/completions", 200, {}, delay=2.0)
    with pytest.raises(LLMTimeout, match="within 0.3 s"):
        OpenAIBackend(stub.url + "/v1", "m", timeout_s=0.3).complete(MESSAGES)


def test_auto_uses_ollama_when_it_has_the_model(stub, monkeypatch) -> None:
    stub.route("/api/tags", 200, TAGS)
    monkeypatch.setenv("OLLAMA_HOST", stub.url)
    choice = choose_llm("auto")
    assert isinstance(choice.llm, OllamaBackend) and choice.llm.model == "qwen2.5-coder:1.5b"
    assert choice.reason == f"auto chose Ollama at {stub.url} has qwen2.5-coder:1.5b"


def test_auto_falls_back_to_offline_and_says_why(stub, closed_url, monkeypatch) -> None:
    stub.route("/api/tags", 200, {"models": []})
    monkeypatch.setenv("OLLAMA_HOST", stub.url)
    choice = choose_llm("auto")
    assert isinstance(choice.llm, LlamaCppBackend)
    assert "run `ollama pull qwen2.5-coder:1.5b`" in choice.reason
    monkeypatch.setenv("OLLAMA_HOST", closed_url)
    assert "no Ollama server" in choose_llm("auto").reason


def test_explicit_specs_and_cache_wrapping(tmp_path) -> None:
    assert choose_llm("ollama:llama3.2").llm.model == "llama3.2"
    assert choose_llm("local:qwen2.5-coder-0.5b").llm.model == "qwen2.5-coder-0.5b"
    openai = choose_llm("openai:http://127.0.0.1:8000/v1#my-model").llm
    assert (openai.base_url, openai.model) == ("http://127.0.0.1:8000/v1", "my-model")
    cached = choose_llm("local", cache_mode="ro", cache_dir=tmp_path).llm
    assert isinstance(cached, CachedLLM) and cached.mode == "ro"
    for bad in ("gpt", "openai:http://x", "local:nope", "auto:x"):
        with pytest.raises(UnknownNameError):
            choose_llm(bad)


def test_doctor_rows(stub, monkeypatch) -> None:
    stub.route("/api/tags", 200, TAGS)
    monkeypatch.setenv("OLLAMA_HOST", stub.url)
    rows = {row["component"]: row for row in doctor_report()}
    assert rows["ollama server"]["status"] == "ok"
    assert rows["ollama model qwen2.5-coder:1.5b"]["status"] == "ok"
    assert rows["llm auto"]["detail"] == "would use Ollama model qwen2.5-coder:1.5b"
    assert {"llama.cpp runtime", "offline model qwen2.5-coder-1.5b"} <= set(rows)
    for row in rows.values():
        assert set(row) == {"component", "status", "detail", "fix"}
        assert row["status"] in ("ok", "missing") and (row["status"] == "ok") != bool(row["fix"])
