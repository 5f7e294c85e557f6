"""Soft prompts: vectors a white-box reader takes into its embedding layer before the prompt's
text tokens (GRAG's graph token). Black-box readers (Ollama, llama.cpp, OpenAI-compatible
servers) take text only and refuse them in one line."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

# The key under which a soft prompt travels with a request's resolved options, inside a backend.
SOFT_PROMPT_OPTION = "soft_prompt"


@dataclass(frozen=True)
class SoftPrompt:
    """`vectors`: a (tokens, hidden size) float tensor placed before the first text token."""

    vectors: torch.Tensor

    @property
    def tokens(self) -> int:
        return int(self.vectors.shape[0])

    def fingerprint(self) -> str:
        """sha256 of the shape and the float32 values (the response cache keys it)."""
        values = self.vectors.detach().to("cpu").float().contiguous()
        digest = hashlib.sha256(repr(tuple(values.shape)).encode())
        digest.update(values.numpy().tobytes())
        return digest.hexdigest()


def text_only_error(reader: str) -> str:
    """Why `reader` cannot take a soft prompt, in one line."""
    return (
        f"{reader} takes text only: a soft prompt (a graph token) goes into the model's embedding "
        "layer, which needs a white-box reader (--llm hf[:NAME])"
    )
