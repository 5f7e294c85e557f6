"""Fault fixtures. The LLM servers here are stubs on loopback (they say so): scripted replies,
HTTP 503s, trickled bodies and stalls, to drive kgviz's real HTTP backends through failures a
real server only shows now and then."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from kgviz.llm.base import DEFAULT_OPTIONS, LLM, Completion, Message

Reply = tuple[int, bytes, float]  # status, body, seconds between body bytes (0: all at once)


class FaultServer:
    """A stub LLM server on loopback: `script(n, body)` gives the reply to the n-th request
    (0-based) whose body is `body`."""

    def __init__(self, script: Callable[[int, str], Reply]) -> None:
        self.script, self.requests = script, 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                request = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                number, server.requests = server.requests, server.requests + 1
                status, body, trickle = server.script(number, request.decode("utf-8", "replace"))
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    if not trickle:
                        self.wfile.write(body)
                        return
                    for byte in body:  # one byte at a time: never idle long enough to time out
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(trickle)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up, as it should

            do_GET = do_POST

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fault_server() -> Iterator[Callable[[Callable[[int, str], Reply]], FaultServer]]:
    servers: list[FaultServer] = []

    def start(script: Callable[[int, str], Reply]) -> FaultServer:
        servers.append(FaultServer(script))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Retries keep their count but pause only briefly in tests."""
    monkeypatch.setattr("kgviz.llm.base.RETRY_PAUSES_S", (0.01, 0.01))


class ReplyLLM(LLM):
    """An LLM in process (no server): every request gets the same reply; `calls` counts them."""

    name, model = "stub", "m"

    def __init__(self, reply: str = "Ron Howard") -> None:
        self.reply, self.calls = reply, 0

    def options(self, **overrides: Any) -> dict[str, Any]:
        return {**DEFAULT_OPTIONS, **overrides}

    def complete(
        self, messages: list[Message], schema: dict | None = None, **options: Any
    ) -> Completion:
        self.calls += 1
        return Completion(self.reply, None, 5, 2, 0.01, self.name, self.model)


@pytest.fixture
def reply_llm() -> ReplyLLM:
    return ReplyLLM()


@dataclass
class CliRun:
    """What a `python -m kgviz ...` run left: its exit code, stderr, and its one error line."""

    returncode: int
    stderr: str

    @property
    def error(self) -> str:
        """The run's only `kgviz: error:` line (asserting there is exactly one, and no
        traceback)."""
        assert "Traceback" not in self.stderr, self.stderr
        errors = [line for line in self.stderr.splitlines() if line.startswith("kgviz: error:")]
        assert len(errors) == 1, self.stderr
        return errors[0]


@pytest.fixture
def kgviz_cli(tmp_path) -> Callable[..., CliRun]:
    """Run `python -m kgviz ARGS` with a private cache (and `env` on top); `file_limit` caps
    the size of any file the process writes (RLIMIT_FSIZE: a write past it fails with EFBIG)."""

    def run(*args: str, env: dict[str, str] | None = None, file_limit: int | None = None) -> CliRun:
        def limit() -> None:
            import resource

            resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))

        result = subprocess.run(
            [sys.executable, "-m", "kgviz", *args],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
            env={**os.environ, "KGVIZ_CACHE": str(tmp_path / "cache"), **(env or {})},
            preexec_fn=limit if file_limit is not None else None,
        )
        return CliRun(result.returncode, result.stderr)

    return run


@pytest.fixture
def ask_llm_only() -> tuple[str, ...]:
    """`kgviz ask` arguments for LLM-only on the demo with an OpenAI-compatible address where no
    server listens (a run that reaches the LLM fails there)."""
    return (
        "ask",
        "who directed Apollo 13",
        "--method",
        "llm-only",
        "--llm",
        "openai:http://127.0.0.1:9/v1#m",
    )
