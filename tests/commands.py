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
