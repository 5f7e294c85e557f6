"""How the benchmarks run one `kgviz ask` in a fresh process: the command line."""

from __future__ import annotations

import sys


def ask_command(question: str, method: str, llm: str = "local", cache: str = "off") -> list[str]:
    """`python -m kgviz ask QUESTION` on the demo KG with `method`, `llm` and the reply-cache
    mode `cache`, printing the run as JSON (the arguments of `kgviz ask` start at index 4)."""
    return [
        sys.executable,
        "-m",
        "kgviz",
        "ask",
        question,
        "--dataset",
        "demo",
        "--method",
        method,
        "--llm",
        llm,
        "--cache",
        cache,
        "--json",
    ]
