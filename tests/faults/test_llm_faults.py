"""LLM servers that fail, stall or trickle (stub servers on loopback): transient failures are
retried, every request has a total deadline, and Ctrl-C or a cancellation stops it at once."""

from __future__ import annotations

import json
import logging
import math
import os
import select
import signal
import subprocess
import sys
import threading
import time

import pytest

from kgviz.llm.deadline import cancel_requests
from kgviz.llm.errors import LLMCancelled, LLMError, LLMTimeout, LLMTransient
from kgviz.llm.ollama_backend import OllamaBackend
from kgviz.llm.openai_backend import OpenAIBackend

MESSAGES = [{"role": "user", "content": "who directed Forrest Gump"}]
BACKENDS = {
    "openai": (lambda url, **kw: OpenAIBackend(url + "/v1", "m", **kw), "openai_reply"),
    "ollama": (lambda url, **kw: OllamaBackend("m", host=url, **kw), "ollama_reply"),
}


def openai_reply(text: str) -> bytes:
    return json.dumps(
        {
            "choices": [
                {"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 3},
        }
    ).encode()


def ollama_reply(text: str) -> bytes:
    return json.dumps(
        {
            "model": "m",
            "message": {"role": "assistant", "content": text},
            "done": True,
            "done_reason": "stop",
            "prompt_eval_count": 10,
            "eval_count": 3,
        }
    ).encode()


def reply_for(kind: str, text: str) -> bytes:
    return (openai_reply if kind == "openai" else ollama_reply)(text)


@pytest.mark.parametrize("kind", BACKENDS)
def test_transient_503s_are_retried(fault_server, kind):
    server = fault_server(
        lambda n, _: (
            (503, b'{"error":"busy"}', 0) if n < 2 else (200, reply_for(kind, "Robert Zemeckis"), 0)
        )
    )
    completion = BACKENDS[kind][0](server.url).complete(MESSAGES)
    assert completion.text == "Robert Zemeckis" and server.requests == 3


@pytest.mark.parametrize("kind", BACKENDS)
def test_a_lasting_failure_ends_in_one_line_after_the_retries(fault_server, kind):
    server = fault_server(lambda n, _: (503, b'{"error":"overloaded"}' + b"x" * 50_000, 0))
    with pytest.raises(LLMTransient) as info:
        BACKENDS[kind][0](server.url).complete(MESSAGES)
    message = str(info.value)
    assert "HTTP 503" in message and "3 attempt" in message and server.requests == 3
    assert "\n" not in message and len(message) < 500  # the error body is capped


@pytest.mark.parametrize("kind", BACKENDS)
def test_a_trickling_server_is_bounded_by_the_total_deadline(fault_server, kind, monkeypatch):
    monkeypatch.setenv("KGVIZ_LLM_TIMEOUT", "1.5")
    server = fault_server(lambda n, _: (200, reply_for(kind, "x" * 400), 0.05))
    backend = BACKENDS[kind][0](server.url)
    started = time.monotonic()
    with pytest.raises(LLMTimeout, match="within 1.5 s"):
        backend.complete(MESSAGES)
    elapsed = time.monotonic() - started
    assert elapsed < 1.5 + 1  # one deadline for the whole request: a timeout is not retried


def test_a_bad_timeout_setting_is_one_line(monkeypatch):
    monkeypatch.setenv("KGVIZ_LLM_TIMEOUT", "soon")
    with pytest.raises(LLMError, match="KGVIZ_LLM_TIMEOUT must be a number"):
        OpenAIBackend("http://127.0.0.1:9/v1", "m")


def test_cancelling_stops_a_request_in_flight(fault_server):
    server = fault_server(lambda n, _: (200, reply_for("openai", "x" * 400), 0.05))
    threading.Timer(0.5, cancel_requests).start()
    started = time.monotonic()
    with pytest.raises(LLMCancelled):
        BACKENDS["openai"][0](server.url).complete(MESSAGES)
    assert time.monotonic() - started < 1.5


# A stop well inside the request's 60 s deadline, even on a loaded machine (quiet: well under 1 s;
# how long exactly is a figure for a benchmark, not a bound for a test).
INTERRUPT_S = 10.0
EXIT_S = 90.0  # and the process then exits (a loaded machine slows the interpreter's teardown)


# `python -m kgviz ...` that answers Ctrl-C even when started from a test run in the background
# (`make test &`), whose children inherit an ignored SIGINT.
KGVIZ_WITH_CTRL_C = [
    sys.executable,
    "-c",
    (
        "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "sys.argv[0] = 'kgviz'; runpy.run_module('kgviz', run_name='__main__')"
    ),
]


def interrupt(process: subprocess.Popen) -> tuple[float, str]:
    """Send SIGINT to `process`; return the seconds until it said it was interrupted on stderr
    (read as it arrives, so the interpreter's own teardown afterwards is not counted) and all of
    its stderr once it exited."""
    interrupted = time.monotonic()
    process.send_signal(signal.SIGINT)
    said, seen = None, b""
    while process.poll() is None or select.select([process.stderr], [], [], 0)[0]:
        if select.select([process.stderr], [], [], 0.05)[0]:
            chunk = os.read(process.stderr.fileno(), 65536)
            seen += chunk
            if said is None and b"interrupted" in seen:
                said = time.monotonic() - interrupted
            if not chunk and process.poll() is not None:
                break
        assert time.monotonic() - interrupted < EXIT_S, "the process did not exit"
    process.wait(timeout=10)
    return said if said is not None else math.inf, seen.decode(errors="replace")


def test_ctrl_c_stops_ask_long_before_the_request_deadline(fault_server, tmp_path):
    """`kgviz ask` against a server that never finishes its reply, interrupted by SIGINT."""
    server = fault_server(lambda n, _: (200, reply_for("openai", "x" * 4000), 0.05))
    env = {**os.environ, "KGVIZ_CACHE": str(tmp_path / "cache"), "KGVIZ_LLM_TIMEOUT": "60"}
    process = subprocess.Popen(
        [
            *KGVIZ_WITH_CTRL_C,
            "ask",
            "who directed Forrest Gump",
            "--dataset",
            "demo",
            "--method",
            "llm-only",
            "--llm",
            f"openai:{server.url}/v1#m",
            "--cache",
            "off",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    deadline = time.monotonic() + 60
    while server.requests == 0 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert server.requests == 1, "the request never reached the stub server"
    time.sleep(0.5)
    seconds, stderr = interrupt(process)
    assert seconds < INTERRUPT_S
    assert process.returncode == 130 and "interrupted" in stderr and "Traceback" not in stderr


def test_ctrl_c_stops_eval_long_before_the_request_deadline(fault_server, tmp_path):
    """`kgviz eval` with two workers, both requests trickling, interrupted by SIGINT: it stops
    at once and the results file keeps only whole rows."""
    server = fault_server(lambda n, _: (200, reply_for("openai", "x" * 4000), 0.05))
    out = tmp_path / "r.jsonl"
    env = {**os.environ, "KGVIZ_CACHE": str(tmp_path / "cache"), "KGVIZ_LLM_TIMEOUT": "60"}
    process = subprocess.Popen(
        [
            *KGVIZ_WITH_CTRL_C,
            "eval",
            "--dataset",
            "demo",
            "--split",
            "dev",
            "--method",
            "llm-only",
            "--limit",
            "4",
            "--workers",
            "2",
            "--quiet",
            "--cache",
            "off",
            "--llm",
            f"openai:{server.url}/v1#m",
            "--out",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    deadline = time.monotonic() + 60
    while server.requests < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert server.requests >= 2, "the requests never reached the stub server"
    time.sleep(0.5)
    seconds, stderr = interrupt(process)
    assert seconds < INTERRUPT_S
    assert process.returncode == 130 and "Traceback" not in stderr
    assert not out.exists() or out.read_text() == ""


def test_prompts_are_logged_at_debug_level_only(fault_server, caplog):
    server = fault_server(lambda n, _: (200, openai_reply("Robert Zemeckis"), 0))
    backend = OpenAIBackend(server.url + "/v1", "m")
    with caplog.at_level(logging.INFO, logger="kgviz"):
        backend.complete(MESSAGES)
    assert "who directed Forrest Gump" not in caplog.text
    with caplog.at_level(logging.DEBUG, logger="kgviz"):
        backend.complete(MESSAGES)
    assert "[user] who directed Forrest Gump" in caplog.text and "Robert Zemeckis" in caplog.text
