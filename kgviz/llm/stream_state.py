"""A reply as it streams in, whatever the protocol: each piece of text goes to the live reply
(`streaming.emit`) and the loop guard as it comes; the end brings the finish reason and counts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kgviz.llm.base import RawReply
from kgviz.llm.repetition import LoopGuard
from kgviz.llm.streaming import emit


@dataclass
class StreamState:
    """What a streamed reply has delivered so far (`emitting` off: collect it without showing)."""

    guard: LoopGuard
    emitting: bool = True
    tokens: int = 0
    finish: str | None = None
    # prompt_tokens, completion_tokens, reused_tokens (those the server did not read again)
    usage: dict[str, int] = field(default_factory=dict)
    error: Any = None  # an error the server reported in the stream

    def add_text(self, text: str) -> bool:
        """Take the next piece of the reply; True once the loop guard says to stop."""
        if self.emitting:
            emit(text)
        self.tokens += 1
        return self.guard.add_whole(text)

    def count(self, prompt_tokens: Any, completion_tokens: Any, reused_tokens: Any = None) -> None:
        """Record the token counts the server reports (None: not reported)."""
        counts = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "reused_tokens": reused_tokens,
        }
        self.usage = {name: int(value) for name, value in counts.items() if value is not None}

    def reply(self) -> RawReply:
        """The reply so far; without a reported count of completion tokens, the pieces'."""
        return RawReply(
            self.guard.text,
            self.usage.get("prompt_tokens", 0),
            self.usage.get("completion_tokens", self.tokens),
            truncated=self.finish == "length",
            looped=self.guard.looped,
            reused_tokens=self.usage.get("reused_tokens", 0),
        )
