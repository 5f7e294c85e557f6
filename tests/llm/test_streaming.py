"""Live replies: the tokens of the offline model and of real servers on loopback (llama.cpp's
OpenAI-compatible HTTP server, ollama-proxy-plus speaking the Ollama protocol in front of it)
reach a listener as they are generated, a cached reply arrives whole, the lab's live box shows
them escaped, and `kgviz ask` streams to stderr."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from kgviz.app.ask import LiveReply
from kgviz.llm.cache import CachedLLM
from kgviz.llm.ollama_backend import OllamaBackend
from kgviz.llm.openai_backend import OpenAIBackend
from kgviz.llm.streaming import begin_call, streaming_to

MESSAGES = [{"role": "user", "content": "Name three colours, comma separated."}]
COUNT = [{"role": "user", "content": "Count from 1 to 30, comma separated."}]


def test_tokens_stream_from_the_offline_model_and_a_cached_reply_arrives_whole(counting, tmp_path):
    llm = CachedLLM(counting(), tmp_path)
    pieces: list[str] = []
    with streaming_to(pieces.append):
        first = llm.complete(MESSAGES, max_tokens=16)
    assert len(pieces) > 1 and "".join(pieces).startswith(first.text)
    pieces.clear()
    with streaming_to(pieces.append):
        again = llm.complete(MESSAGES, max_tokens=16)
    assert again.cached and pieces == [first.text]
    llm.complete(MESSAGES, max_tokens=16)  # nobody listening: nothing breaks


def listened(llm, **options):
    """`llm.complete(COUNT)`, the pieces a listener saw and the threads it saw them in."""
    pieces: list[str] = []
    threads: set[threading.Thread] = set()

    def listen(text: str) -> None:
        pieces.append(text)
        threads.add(threading.current_thread())

    with streaming_to(listen):
        return llm.complete(COUNT, **options), pieces, threads


@pytest.mark.slow
def test_tokens_stream_from_an_openai_compatible_server(llamacpp_http, tmp_path):
    llm = CachedLLM(OpenAIBackend(llamacpp_http, "qwen2.5-coder-0.5b"), tmp_path)
    first, pieces, threads = listened(llm, max_tokens=12)
    assert len(pieces) > 3 and "".join(pieces) == first.text
    assert threads == {threading.current_thread()}  # handed over in the thread that asked
    assert first.truncated and first.completion_tokens == 12 and first.prompt_tokens > 0
    again, pieces, _ = listened(llm, max_tokens=12)
    assert again.cached and pieces == [first.text]


@pytest.mark.slow
def test_tokens_stream_from_an_ollama_server(ollama_proxy, proxy_model):
    completion, pieces, threads = listened(
        OllamaBackend(proxy_model, host=ollama_proxy), max_tokens=12
    )
    assert len(pieces) > 3 and "".join(pieces) == completion.text
    assert threads == {threading.current_thread()}
    assert completion.prompt_tokens > 0 and completion.completion_tokens > 0


def test_the_live_box_shows_the_stage_and_escaped_text():
    live = LiveReply()
    with streaming_to(live.add, live.start):
        begin_call("generation")
        live.shown_at = 0.0
        live.add("<b>Robert</b> Zemeckis")
    assert "generation" in live.value and "&lt;b&gt;Robert&lt;/b&gt; Zemeckis" in live.value
    live.clear()
    assert live.value == ""


@pytest.mark.llm
def test_ask_streams_the_reply_to_the_terminal():
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "kgviz",
            "ask",
            "who directed Forrest Gump",
            "--dataset",
            "demo",
            "--method",
            "llm-only",
            "--llm",
            "local",
            "--cache",
            "off",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "── generation: the LLM writes …\n│ " in result.stderr
    assert "── generation done in" in result.stderr
    streamed = result.stderr.split("the LLM writes …\n│ ", 1)[1].split("\n── ", 1)[0]
    assert streamed.strip() and streamed.strip().splitlines()[0] in result.stdout
