"""The real thing: the offline model in-process, and the Ollama and OpenAI-compatible backends
against real servers on loopback (llama.cpp's HTTP server, and ollama-proxy-plus speaking the
Ollama protocol in front of it)."""

from __future__ import annotations

import threading
import time

import pytest

from kgviz.llm.json_completion import complete_json
from kgviz.llm.llamacpp_backend import LlamaCppBackend
from kgviz.llm.ollama_backend import OllamaBackend
from kgviz.llm.openai_backend import OpenAIBackend
from kgviz.llm.select import choose_llm
from kgviz.llm.streaming import streaming_to

pytestmark = pytest.mark.slow


def _assert_pattern(completion, backend: str) -> None:
    triples = completion.parsed["triples"]
    assert triples and all(set(t) >= {"head", "relation", "tail"} for t in triples)
    assert completion.prompt_tokens > 0 and completion.completion_tokens > 0
    assert 0 < completion.latency_s < 120
    assert completion.backend == backend and not completion.cached


def test_offline_model_extracts_a_pattern_as_json(
    model_1_5b, pattern_messages, triples_schema
) -> None:
    completion = LlamaCppBackend("qwen2.5-coder-1.5b").complete(pattern_messages, triples_schema)
    _assert_pattern(completion, "llamacpp")
    names = " ".join(v for t in completion.parsed["triples"] for v in t.values()).lower()
    assert "tom hanks" in names


def test_offline_model_is_loaded_once_and_safe_from_threads(model_1_5b) -> None:
    first, second = LlamaCppBackend(), LlamaCppBackend()
    assert first.load() is second.load()
    results: list = []

    def ask(backend: LlamaCppBackend, question: str) -> None:
        results.append(backend.complete([{"role": "user", "content": question}], max_tokens=8))

    threads = [
        threading.Thread(target=ask, args=(b, q))
        for b, q in ((first, "Say yes."), (second, "Say no."))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert len(results) == 2 and all(r.text and r.completion_tokens <= 8 for r in results)


def test_complete_json_without_constraint_on_the_real_model(
    model_1_5b, pattern_messages, triples_schema
) -> None:
    messages = [
        {
            **pattern_messages[0],
            "content": pattern_messages[0]["content"]
            + ' Format: {"triples": [{"head": ..., "relation": ..., "tail": ...}]}',
        },
        pattern_messages[1],
    ]
    completion = complete_json(LlamaCppBackend(), messages, triples_schema, constrained=False)
    _assert_pattern(completion, "llamacpp")


def test_ollama_backend_against_a_real_ollama_protocol_server(
    ollama_proxy, proxy_model, one_hop_messages, triples_schema
) -> None:
    backend = OllamaBackend(proxy_model, host=ollama_proxy)
    assert proxy_model in backend.list_models() and backend.has_model()
    _assert_pattern(backend.complete(one_hop_messages, triples_schema), "ollama")


def test_auto_picks_a_real_ollama_server(ollama_proxy, proxy_model, monkeypatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", ollama_proxy)
    monkeypatch.setenv("KGVIZ_OLLAMA_MODEL", proxy_model)
    choice = choose_llm("auto")
    assert isinstance(choice.llm, OllamaBackend) and proxy_model in choice.reason


def test_openai_backend_against_llamacpp_http(
    llamacpp_http, one_hop_messages, triples_schema
) -> None:
    backend = OpenAIBackend(llamacpp_http, "qwen2.5-coder-0.5b")
    assert backend.list_models()
    _assert_pattern(backend.complete(one_hop_messages, triples_schema), "openai")


def test_offline_model_slots_decode_requests_together(model_1_5b) -> None:
    """With two slots, two requests from two threads are decoded at the same time: each one's
    tokens arrive while the other's are still coming (one slot would finish one first)."""
    backend = LlamaCppBackend(slots=2)
    assert backend.parallel_requests == 2
    arrivals: dict[str, list[float]] = {}

    def ask(name: str, question: str) -> None:
        times = arrivals.setdefault(name, [])
        with streaming_to(lambda _text: times.append(time.monotonic())):
            backend.complete(
                [{"role": "user", "content": question}], max_tokens=48, loop_guard=False
            )

    threads = [
        threading.Thread(target=ask, args=(name, f"Count from 1 to 40 in {name}."))
        for name in ("words", "digits")
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    first, second = arrivals["words"], arrivals["digits"]
    assert len(first) > 8 and len(second) > 8
    assert first[0] < second[-1] and second[0] < first[-1]  # the streams overlap in time


def test_offline_model_keeps_a_prefix_cached_while_other_prompts_run(model_1_5b) -> None:
    """A long shared prefix (a method's examples) is read once: after another method's prompt
    took the slot, the next question with that prefix reuses its cached tokens."""
    server = LlamaCppBackend().load().server
    examples = " ".join(f"Example {i}: Film{i} was directed by Person{i}." for i in range(40))
    other = " ".join(f"Fact {i}: value {i * 3}." for i in range(40))

    def read(system: str, question: str) -> dict:
        body = {
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": question},
            ],
            "max_tokens": 1,
        }
        return server.handle_chat_completions(body)["timings"]

    read(examples, "Who directed Film3?")
    read(other, "What is the largest value?")
    again = read(examples, "Who directed Film7?")
    assert again["cache_n"] > 300 and again["prompt_n"] < 30


def test_a_server_reuses_a_methods_prefix_across_questions(llamacpp_http) -> None:
    """A server's own prefix cache works because every method puts its fixed part first: the
    second question's SimGRAG pattern prompt is read from its question on, as the server says
    (OpenAI-compatible `cached_tokens`; Ollama reports the same as `prompt_eval_cached_count`)."""
    from kgviz.reasoners.simgrag.prompts import pattern_messages

    backend = OpenAIBackend(llamacpp_http, "qwen2.5-coder-0.5b", max_tokens=1)
    first = backend.complete(pattern_messages("movies", "who directed Heat"))
    second = backend.complete(pattern_messages("movies", "what genre is Alien"))
    assert first.prompt_tokens > 1000
    assert second.reused_tokens > 1000 and second.prompt_tokens - second.reused_tokens < 30
