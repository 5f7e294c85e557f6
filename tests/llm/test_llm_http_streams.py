"""Streamed replies of the HTTP backends: Ollama's JSON lines and OpenAI's server-sent events.

A stub HTTP server (`stub` fixture, http.server on loopback) stands in for the servers ONLY to
test protocol handling and error paths a real server cannot be made to show on demand: a given
finish reason and token counts, a reply that loops, trickles or stalls, a connection dropped
mid-reply, malformed lines. Real servers stream in test_streaming.py.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from kgviz.llm.deadline import cancel_requests
from kgviz.llm.errors import LLMCancelled, LLMError, LLMTimeout, LLMTransient
from kgviz.llm.http_backend import HTTPBackend
from kgviz.llm.ollama_backend import OllamaBackend
from kgviz.llm.openai_backend import OpenAIBackend
from kgviz.llm.streaming import streaming_to

MESSAGES = [{"role": "user", "content": "who directed Forrest Gump"}]
TOKENS = ["Robert", " Zem", "eckis"]
LOOP = ["The", " Champ", ","] * 300  # read whole, this stream would take 4.5 s


def ollama_lines(tokens: list[str], done_reason: str = "stop") -> list[bytes]:
    """An /api/chat stream: one line per token, then the last line with the counts."""
    lines: list[dict[str, Any]] = [
        {"model": "m", "message": {"role": "assistant", "content": token}, "done": False}
        for token in tokens
    ]
    last = {
        "done": True,
        "done_reason": done_reason,
        "prompt_eval_count": 7,
        "prompt_eval_cached_count": 5,  # the prompt tokens Ollama took from its cache
        "eval_count": 3,
    }
    lines.append({"model": "m", "message": {"role": "assistant", "content": ""}, **last})
    return [json.dumps(line).encode() + b"\n" for line in lines]


def openai_events(tokens: list[str], finish: str = "stop") -> list[bytes]:
    """A chat-completions event stream: a role chunk, one chunk per token, the finish reason,
    the usage chunk and `[DONE]`."""
    chunks: list[dict[str, Any]] = [{"choices": [{"delta": {"role": "assistant"}}]}]
    chunks += [{"choices": [{"delta": {"content": token}}]} for token in tokens]
    chunks.append({"choices": [{"delta": {}, "finish_reason": finish}]})
    usage = {"prompt_tokens": 7, "completion_tokens": 3}
    usage["prompt_tokens_details"] = {"cached_tokens": 5}  # what the server took from its cache
    chunks.append({"choices": [], "usage": usage})
    return [b"data: " + json.dumps(chunk).encode() + b"\n\n" for chunk in chunks] + [
        b"data: [DONE]\n\n"
    ]


@dataclass
class Protocol:
    """How one backend's server streams: where, as what, and its one-token (probe) reply."""

    path: str
    content_type: str
    backend: Callable[..., HTTPBackend]
    lines: Callable[..., list[bytes]]
    probe_reply: dict[str, Any]


PROTOCOLS = {
    "ollama": Protocol(
        "/api/chat",
        "application/x-ndjson",
        lambda url, **kw: OllamaBackend("m", host=url, **kw),
        ollama_lines,
        {"message": {"content": "The"}, "done": True, "prompt_eval_count": 42, "eval_count": 1},
    ),
    "openai": Protocol(
        "/v1/chat/completions",
        "text/event-stream",
        lambda url, **kw: OpenAIBackend(url + "/v1", "m", **kw),
        openai_events,
        {
            "choices": [{"message": {"content": "The"}, "finish_reason": "length"}],
            "usage": {"prompt_tokens": 42, "completion_tokens": 1},
        },
    ),
}


@pytest.fixture(params=PROTOCOLS)
def protocol(request) -> Protocol:
    return PROTOCOLS[request.param]


def complete(backend: HTTPBackend, **options: Any) -> tuple[Any, list[str]]:
    """`backend.complete(MESSAGES)` and the pieces a listener saw, in order."""
    pieces: list[str] = []
    with streaming_to(pieces.append):
        return backend.complete(MESSAGES, **options), pieces


def test_token_counts_prefix_reuse_and_truncation_come_through_the_stream(stub, protocol) -> None:
    stub.stream(protocol.path, protocol.lines(TOKENS, "length"), protocol.content_type)
    completion, pieces = complete(protocol.backend(stub.url))
    assert pieces == TOKENS and completion.text == "Robert Zemeckis"
    assert (completion.prompt_tokens, completion.completion_tokens) == (7, 3)
    assert completion.reused_tokens == 5  # the server's prefix cache, as it reports it
    assert completion.truncated and not completion.looped
    [(_, body)] = stub.requests  # one request: the stream gave the counts
    assert body["stream"] is True
    assert body.get("stream_options") in (None, {"include_usage": True})  # OpenAI: ask counts


def test_the_loop_guard_stops_a_looping_stream_and_closes_it(stub, protocol) -> None:
    stub.stream(protocol.path, protocol.lines(LOOP), protocol.content_type, pause=0.005)
    stub.route(protocol.path, body=protocol.probe_reply, then=True)
    started = time.monotonic()
    completion, pieces = complete(protocol.backend(stub.url))
    assert time.monotonic() - started < 3
    assert completion.looped and completion.text == "The Champ,"
    assert len(pieces) < 60 and "".join(pieces).startswith("The Champ,The Champ,")
    assert stub.hung_up.wait(5)  # the connection was closed mid-stream
    # the stream stopped before its counts: a one-token request gives the prompt's
    assert (completion.prompt_tokens, completion.completion_tokens) == (42, len(pieces))
    probe = stub.requests[1][1]
    assert probe["stream"] is False
    assert probe.get("max_tokens", probe.get("options", {}).get("num_predict")) == 1


@pytest.mark.parametrize("how", ["trickles", "stalls"])
def test_a_stream_that_trickles_or_stalls_hits_the_total_deadline(stub, protocol, how) -> None:
    lines = protocol.lines([f" w{i}" for i in range(100)])
    # a line every 0.1 s never trips a read timeout; a stall after two lines meets the deadline
    # (it started before the last read) first, or a read timeout right after it
    pause = [0.1] * len(lines) if how == "trickles" else [0.0, 0.0] + [10.0] * (len(lines) - 2)
    stub.stream(protocol.path, lines, protocol.content_type, pause=pause)
    started = time.monotonic()
    with pytest.raises(LLMTimeout, match="within 1 s"):  # the deadline, or a read timeout
        complete(protocol.backend(stub.url, timeout_s=1.0))
    assert time.monotonic() - started < 2.5
    assert len(stub.requests) == 1  # a timeout is not retried


def test_cancelling_stops_a_stream_in_flight(stub, protocol) -> None:
    lines = protocol.lines([f" w{i}" for i in range(100)])
    stub.stream(protocol.path, lines, protocol.content_type, pause=0.1)
    threading.Timer(0.5, cancel_requests).start()
    started = time.monotonic()
    with pytest.raises(LLMCancelled):
        complete(protocol.backend(stub.url))
    assert time.monotonic() - started < 1.5


def test_a_failure_before_the_first_token_is_retried(stub, protocol) -> None:
    stub.route(protocol.path, 503, {"error": "busy"})
    stub.stream(protocol.path, protocol.lines(TOKENS), protocol.content_type, then=True)
    completion, pieces = complete(protocol.backend(stub.url))
    assert completion.text == "Robert Zemeckis" and pieces == TOKENS
    assert len(stub.requests) == 2


def test_a_connection_dropped_mid_reply_is_not_retried(stub, protocol) -> None:
    """Two tokens, then the server hangs up: the text shown would show twice on a retry."""
    lines = protocol.lines(TOKENS)
    second = next(i for i, line in enumerate(lines) if b"Zem" in line)
    stub.stream(protocol.path, lines[: second + 1], protocol.content_type, cut=True)
    stub.stream(protocol.path, lines, protocol.content_type, then=True)
    pieces: list[str] = []
    with streaming_to(pieces.append), pytest.raises(LLMTransient) as info:
        protocol.backend(stub.url).complete(MESSAGES)
    assert "mid-reply: not retried" in str(info.value) and "\n" not in str(info.value)
    assert pieces == TOKENS[:2] and len(stub.requests) == 1


MALFORMED = {
    "ollama": [
        ([b'{"message": {"content": "a"}, "done": false}\n', b"<html>oops</html>\n"], "not JSON"),
        ([b'{"message": {"content": 3}, "done": false}\n'], "no message content"),
        ([b"[1, 2]\n"], "a line is not a JSON object"),
        ([b'{"message": {"content": "a"}, "done": false}\n'], "the stream ended before its last"),
    ],
    "openai": [
        ([b"data: {oops\n\n"], "not JSON"),
        ([b"<html>oops\n"], "not a server-sent event line: '<html>oops'"),
        ([b'data: {"choices": [{"delta": {"content": 3}}]}\n\n'], "content is not a string"),
        ([b'data: {"choices": [{"delta": {"content": "a"}}]}\n\n'], "the stream ended before"),
    ],
}


@pytest.mark.parametrize(
    "kind, lines, expected", [(kind, *case) for kind, cases in MALFORMED.items() for case in cases]
)
def test_a_malformed_stream_fails_in_one_line(stub, kind, lines, expected) -> None:
    protocol = PROTOCOLS[kind]
    stub.stream(protocol.path, lines, protocol.content_type)
    backend = protocol.backend(stub.url)
    with pytest.raises(LLMError) as info:
        complete(backend)
    message = str(info.value)
    assert message.startswith(f"malformed reply from {backend.where}: {expected}")
    assert "\n" not in message and len(stub.requests) == 1  # not retried


@pytest.mark.parametrize(
    "kind, line",
    [
        ("ollama", b'{"error": "the model\\ncrashed"}\n'),
        ("openai", b'data: {"error": {"message": "the model\\ncrashed", "code": 500}}\n\n'),
        ("openai", b'error: {"message": "the model crashed"}\n\n'),  # llama.cpp's server
    ],
)
def test_an_error_in_the_stream_fails_in_one_line(stub, kind, line) -> None:
    protocol = PROTOCOLS[kind]
    stub.stream(protocol.path, [line], protocol.content_type)
    with pytest.raises(LLMError, match="stopped with an error: .*the model.crashed") as info:
        complete(protocol.backend(stub.url))
    assert "\n" not in str(info.value)
