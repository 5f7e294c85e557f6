"""An LLM server that is not there is reported at once: refused, or a port that drops every
connection before replying (a stub on loopback), is one line within 2 s of the first request and
is not retried; a server that has answered before still has its dropped connections retried."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from kgviz.llm.errors import LLMTimeout, LLMTransient, LLMUnavailable
from kgviz.llm.http_errors import transport_error
from kgviz.llm.ollama_backend import OllamaBackend
from kgviz.llm.openai_backend import OpenAIBackend

MESSAGES = [{"role": "user", "content": "who directed Apollo 13"}]
REPLY = (
    b'{"choices":[{"message":{"content":"Ron Howard"},"finish_reason":"stop"}],'
    b'"usage":{"prompt_tokens":5,"completion_tokens":2}}'
)


class DroppingServer:
    """A stub on loopback that answers the first `answers` connections with a whole reply and
    closes every later one as soon as it has read the request."""

    def __init__(self, answers: int = 0) -> None:
        self.answers, self.connections = answers, 0
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.socket.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            with connection:
                self.connections += 1
                connection.recv(65536)
                if self.connections <= self.answers:
                    head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    head += f"Content-Length: {len(REPLY)}\r\nConnection: close\r\n\r\n"
                    connection.sendall(head.encode() + REPLY)


@pytest.fixture
def dropping() -> Iterator[type[DroppingServer]]:
    servers: list[DroppingServer] = []

    def start(answers: int = 0) -> DroppingServer:
        servers.append(DroppingServer(answers))
        return servers[-1]

    yield start  # type: ignore[misc]
    for server in servers:
        server.socket.close()


def closed_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        return probe.getsockname()[1]


@pytest.mark.parametrize("kind", ["ollama", "openai"])
def test_a_port_that_drops_connections_is_no_server_at_once(dropping, kind, monkeypatch):
    monkeypatch.setattr("kgviz.llm.base.RETRY_PAUSES_S", (1.0, 4.0))  # the real pauses
    server = dropping()
    backend = (
        OllamaBackend("m", host=server.url)
        if kind == "ollama"
        else OpenAIBackend(server.url + "/v1", "m")
    )
    started = time.monotonic()
    with pytest.raises(LLMUnavailable, match="dropped before any reply") as error:
        backend.complete(MESSAGES)
    assert time.monotonic() - started < 2.0 and server.connections == 1
    assert "\n" not in str(error.value) and str(error.value).startswith("no ")


def test_a_refused_connection_is_no_server_at_once(monkeypatch):
    monkeypatch.setattr("kgviz.llm.base.RETRY_PAUSES_S", (1.0, 4.0))
    started = time.monotonic()
    with pytest.raises(LLMUnavailable, match="no Ollama server at"):
        OllamaBackend("m", host=f"127.0.0.1:{closed_port()}").complete(MESSAGES)
    assert time.monotonic() - started < 2.0


def test_eval_against_a_port_that_drops_connections_stops_in_one_line(
    dropping, kgviz_cli, tmp_path
):
    server = dropping()
    started = time.monotonic()
    run = kgviz_cli(
        *("eval", "--dataset", "demo", "--split", "dev", "--method", "llm-only", "--quiet"),
        *("--limit", "5", "--llm", "ollama", "--cache", "off", "--out", str(tmp_path / "r.jsonl")),
        env={"OLLAMA_HOST": server.url},
    )
    assert run.returncode == 2 and "dropped before any reply" in run.error
    assert server.connections == 1 and time.monotonic() - started < 60


def test_a_server_that_answered_before_has_its_drops_retried(dropping):
    server = dropping(answers=1)
    backend = OpenAIBackend(server.url + "/v1", "m")
    assert backend.complete(MESSAGES).text == "Ron Howard"
    with pytest.raises(LLMTransient, match=r"3 attempt"):
        backend.complete(MESSAGES)
    assert server.connections == 1 + 3


@pytest.mark.parametrize(
    "error, answered, expected",
    [
        (httpx.ConnectTimeout("slow"), False, LLMUnavailable),  # a blackholed address
        (httpx.ConnectTimeout("slow"), True, LLMTransient),  # retried
        (httpx.RemoteProtocolError("gone"), False, LLMUnavailable),
        (httpx.RemoteProtocolError("gone"), True, LLMTransient),
        (httpx.ReadTimeout("slow"), False, LLMTimeout),  # a server still at work: its deadline
    ],
)
def test_which_transport_failures_mean_no_server(error, answered, expected):
    made = transport_error(error, "X", 60, "no server at X", answered)
    assert type(made) is expected
