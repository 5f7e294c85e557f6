"""Fault fixtures. The LLM servers here are stubs on loopback (they say so): scripted replies,
HTTP 503s, trickled bodies and stalls, to drive kgviz's real HTTP backends through failures a
real server only shows now and then."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

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
