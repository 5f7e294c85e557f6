"""Command lines the tests run in a fresh process."""

from __future__ import annotations

import os
import subprocess
import sys


def demo_eval(method: str, llm: str, *options: str) -> list[str]:
    """`python -m kgviz eval` of `method` on the demo's dev split with the LLM `llm`, then
    `options` (`--limit`, `--out`, ...)."""
    return [
        *(sys.executable, "-m", "kgviz", "eval"),
        *("--dataset", "demo", "--split", "dev", "--method", method, "--llm", llm),
        *options,
    ]


_LIMITED_KGVIZ = (
    "import resource, runpy, sys; limit = int(sys.argv.pop(1)); "
    "resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit)); "
    "sys.argv[0] = 'kgviz'; runpy.run_module('kgviz', run_name='__main__')"
)


def with_file_limit(command: list[str], limit: int) -> list[str]:
    """`command` (a `python -m kgviz ...` line) run so that no file it writes may grow past
    `limit` bytes (RLIMIT_FSIZE: a write past it fails with EFBIG, as on a full disk).

    The limit is set by the new interpreter itself, not by a `preexec_fn`: that would make
    subprocess fork this process, and a test worker that has loaded grpc (pymilvus) runs grpc's
    at-fork handlers in the child, which can abort it before it starts.
    """
    assert command[:3] == [sys.executable, "-m", "kgviz"], command
    return [sys.executable, "-c", _LIMITED_KGVIZ, str(limit), *command[3:]]


def run_kgviz(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """`python -m kgviz ARGS` in a fresh process (with `env` on top of this one's), its output
    captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "kgviz", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, **(env or {})},
    )
