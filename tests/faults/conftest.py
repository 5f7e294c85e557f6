"""Fault fixtures. The LLM servers here are stubs on loopback (they say so): scripted replies,
HTTP 503s, trickled bodies and stalls, to drive kgviz's real HTTP backends through failures a
real server only shows now and then."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from kgviz.llm.base import DEFAULT_OPTIONS, LLM, Completion, Message
from tests.commands import with_file_limit


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
        command = [sys.executable, "-m", "kgviz", *args]
        result = subprocess.run(
            command if file_limit is None else with_file_limit(command, file_limit),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
            env={**os.environ, "KGVIZ_CACHE": str(tmp_path / "cache"), **(env or {})},
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
