"""An Oxigraph SPARQL server on loopback, for trying a KG behind an endpoint (and for the tests).

The `oxigraph` wheel (in the lock) ships the server binary beside the venv's Python. `load` puts
N-Triples into a store folder once; `served` runs `oxigraph serve-read-only` on a free loopback
port until the block ends.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import httpx

from kgviz.errors import StoreError

START_TIMEOUT_S = 30.0


def binary() -> str:
    """The `oxigraph` executable: beside this Python, else on PATH."""
    beside = Path(sys.executable).with_name("oxigraph")
    found = str(beside) if beside.is_file() else shutil.which("oxigraph")
    if found is None:
        raise StoreError("the oxigraph server is not installed (pip install oxigraph)")
    return found


def load(ntriples: Path, location: Path, timeout_s: float = 3600.0) -> None:
    """Load an N-Triples file into the store folder `location`."""
    done = subprocess.run(
        [binary(), "load", "--location", str(location), "--file", str(ntriples)],
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=False,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise StoreError(f"oxigraph could not load {ntriples}: {last}")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def served(
    location: Path, port: int | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """(the query URL, the server process) of a read-only server over `location` on `port` (a
    free one by default), up and answering; stopped when the block ends."""
    port = port or _free_port()
    process = subprocess.Popen(
        [binary(), "serve-read-only", "--location", str(location), "--bind", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/query"
    try:
        _wait_until_up(url, process)
        yield url, process
    finally:
        process.terminate()
        with suppress(subprocess.TimeoutExpired):
            process.wait(timeout=10)
        process.kill()  # a no-op once it has stopped
        process.wait()


def _wait_until_up(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            error = process.stderr.read().decode("utf-8", "replace") if process.stderr else ""
            raise StoreError(f"oxigraph stopped at start: {error.strip()[-300:]}")
        try:
            httpx.get(url, params={"query": "ASK {}"}, timeout=1.0, trust_env=False)
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise StoreError(f"oxigraph did not answer at {url} within {START_TIMEOUT_S:g} s")
