"""Command lines the tests run in a fresh process."""

from __future__ import annotations

import sys


def demo_eval(method: str, llm: str, *options: str) -> list[str]:
    """`python -m kgviz eval` of `method` on the demo's dev split with the LLM `llm`, then
    `options` (`--limit`, `--out`, ...)."""
    return [
        *(sys.executable, "-m", "kgviz", "eval"),
        *("--dataset", "demo", "--split", "dev", "--method", method, "--llm", llm),
        *options,
    ]
