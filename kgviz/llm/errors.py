"""Errors of the LLM layer; each message is one actionable line."""

from __future__ import annotations

from kgviz.errors import KgvizError
from kgviz.llm.completion import Completion


class LLMError(KgvizError):
    """Any expected failure while talking to an LLM or preparing its weights."""


class LLMUnavailable(LLMError):
    """The backend cannot be reached, or the model is not there (server down, not pulled)."""


class LLMTransient(LLMError):
    """A failure that may pass on a retry: HTTP 5xx, a dropped connection, a timeout."""


class LLMTimeout(LLMTransient):
    """The request did not finish within its total deadline (`KGVIZ_LLM_TIMEOUT`)."""


class LLMCancelled(LLMError):
    """The request was cancelled (Ctrl-C, a Stop button, `cancel_requests()`)."""


class ModelIntegrityError(LLMError):
    """A model file does not have the recorded size or sha256; it is never loaded."""


class LLMCacheMiss(LLMError):
    """A read-only response cache has no entry for a request."""


class LLMOutputError(LLMError):
    """The model's reply is not the JSON that was asked for; `raw` keeps the reply text and
    `completion` the whole reply with what it cost (None where no reply came)."""

    def __init__(self, message: str, raw: str, completion: Completion | None = None) -> None:
        super().__init__(message)
        self.raw = raw
        self.completion = completion
