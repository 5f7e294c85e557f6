"""Test set-up shared by all folders: where the real data is, a private cache when wanted, a
folder for the runs tests keep, the offline model loaded once per worker, and a stub LLM server
on loopback for error handling (tests that use it say so). The test tiers are in `tiers.py`."""

from __future__ import annotations

import base64
import json
import os
import re
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from kgviz.llm import make_llm
from kgviz.llm.base import LLM
from kgviz.llm.cache import CachedLLM, default_cache_dir

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
# Tests (and the notebooks nbval runs, whose kernels inherit this environment) read the real data
# beside the checkout through KGVIZ_DATA; product code only ever looks at KGVIZ_DATA.
if not os.environ.get("KGVIZ_DATA") and (SHARED_DATA / "MetaQA" / "kb.txt").is_file():
    os.environ["KGVIZ_DATA"] = str(SHARED_DATA)
# Runs the notebooks' lab keeps go to a temporary folder, not into the checkout.
os.environ.setdefault("KGVIZ_RUNS", tempfile.mkdtemp(prefix="kgviz-test-runs-"))
# The user's reply cache, fixed before any test points KGVIZ_CACHE elsewhere.
REPLY_CACHE = default_cache_dir()


@pytest.fixture(scope="session")
def local_llm() -> CachedLLM:
    """The offline model (llama.cpp, Qwen2.5-Coder-1.5B), loaded once per worker, behind the
    user's reply cache in "rw" mode: a reply is the real model's, generated the first time its
    exact request (messages, schema, options) is made and replayed after that, so a changed
    prompt always reaches the model. Tests that need a generation every time take
    `local_llm_cold`."""
    llm = make_llm("local", cache_mode="rw", cache_dir=REPLY_CACHE)
    assert isinstance(llm, CachedLLM)
    llm.inner.load()  # verify and load the model file now, not inside the first test
    return llm


@pytest.fixture(scope="session")
def local_llm_cold(local_llm: CachedLLM) -> LLM:
    """The same loaded model with no reply cache: every request is generated."""
    return local_llm.inner


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real datasets beside the checkout (`../shared/data`), or `KGVIZ_DATA` when set."""
    configured = os.environ.get("KGVIZ_DATA")
    root = Path(configured) if configured else SHARED_DATA
    if not (root / "MetaQA" / "kb.txt").is_file():
        pytest.skip(
            f"real data not found at {root} (set KGVIZ_DATA or place shared/ beside the repo)"
        )
    return root


@pytest.fixture
def tmp_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private KGVIZ_CACHE for tests that must not read or write the user's cache.

    The offline models stay where they are: they are verified files, not per-test state.
    """
    from kgviz.paths import models_root

    monkeypatch.setenv("KGVIZ_MODELS", str(models_root()))
    cache = tmp_path / "cache"
    monkeypatch.setenv("KGVIZ_CACHE", str(cache))
    return cache


@pytest.fixture(autouse=True)
def runs_folder(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Runs that tests keep go to a folder of the test session's, not `./kgviz-runs/`."""
    folder = tmp_path_factory.getbasetemp() / "kgviz-runs"
    monkeypatch.setenv("KGVIZ_RUNS", str(folder))
    return folder


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


@pytest.fixture
def delivered():
    """`delivered(downloads, label) -> (file name, text)`: click the lab's download button
    `label` and read back the file its script hands the browser."""

    def click(downloads, label: str) -> tuple[str, str]:
        downloads.buttons[label].click()
        (output,) = downloads.delivery.outputs
        script = output["data"]["application/javascript"]
        file = json.loads(re.match(r"const file = (.*);\n", script).group(1))
        return file["name"], base64.b64decode(file["data"]).decode("utf-8")

    return click
