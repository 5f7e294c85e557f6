"""LLM-only's options (a light module: listing methods imports no model code)."""

from __future__ import annotations

from dataclasses import dataclass

from kgviz.reasoners.base import (
    ANSWER_TOKENS,
    AnsweringConfig,
    option,
)


@dataclass
class LLMOnlyConfig(AnsweringConfig):
    max_tokens: int = option(128, "most tokens in the answer", range=ANSWER_TOKENS)
