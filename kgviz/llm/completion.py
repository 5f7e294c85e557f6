"""A completion: one LLM reply with what it cost (the value every backend returns)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class Completion:
    """One reply: its text, the parsed JSON when a schema was given, and what it cost."""

    text: str
    parsed: Any | None
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    backend: str
    model: str
    truncated: bool = False  # generation stopped at max_tokens
    cached: bool = False
    looped: bool = False  # the loop guard cut a repeating tail
    reused_tokens: int = 0  # prompt tokens taken from the server's prompt cache, not read again
    # the transient failures of the attempts before this reply (each request reached the server)
    retried: tuple[str, ...] = ()
    soft_tokens: int = 0  # soft-prompt vectors read before the text (counted in prompt_tokens)
