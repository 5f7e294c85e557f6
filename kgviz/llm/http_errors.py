"""HTTP failures of LLM servers as one-line errors: which pass on a retry, which do not."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx

from kgviz.llm.errors import LLMError, LLMTimeout, LLMTransient, LLMUnavailable
from kgviz.llm.redact import mask_secrets, redact_url

ERROR_BODY_CAP = 2_000  # bytes of an error reply read and shown
REPLY_CAP = 64_000_000  # bytes of a successful reply read at most
# Seconds to open a connection: a server that takes longer is as good as absent (a loopback or
# LAN server connects in milliseconds), so an unreachable one is reported within 2 s.
CONNECT_TIMEOUT_S = 1.5


def read_capped(chunks: Iterator[bytes], cap: int) -> bytes:
    """The first `cap` bytes of a streamed body (the rest is never read)."""
    body = bytearray()
    for chunk in chunks:
        body += chunk
        if len(body) >= cap:
            break
    return bytes(body[:cap])


def transport_error(
    error: httpx.HTTPError, where: str, seconds: float, refused: str, answered: bool = True
) -> LLMError:
    """A transport failure. Refused, or (from a server that has not `answered` yet) a connection
    not made in time or dropped before any reply, means no server (`refused` says so): final.
    Once a server has answered, slow connections and drops may pass; a reply that does not come
    within the request's time is a timeout."""
    if isinstance(error, httpx.ConnectError):
        return LLMUnavailable(refused)
    if isinstance(error, httpx.ConnectTimeout):
        slow = f"no connection within {CONNECT_TIMEOUT_S:g} s"
        if answered:
            return LLMTransient(f"connection to {where} failed: {slow}")
        return LLMUnavailable(f"{refused} ({slow})")
    if isinstance(error, httpx.TimeoutException):
        return LLMTimeout(f"{where} did not answer within {seconds:g} s")
    if not answered and isinstance(error, httpx.TransportError):
        return LLMUnavailable(
            f"{refused} (the connection was dropped before any reply: {type(error).__name__})"
        )
    return LLMTransient(f"connection to {where} failed: {type(error).__name__}: {error}")


def error_text(error: Any) -> str:
    """A server's error (text, or an object with a message) on one line of at most 300 chars."""
    if isinstance(error, dict) and error.get("message"):
        error = error["message"]
    return " ".join(str(error).split())[:300]


def status_error(status: int, body: bytes, where: str) -> LLMError:
    """An HTTP error reply: 5xx may pass (transient), anything else is final."""
    text: Any = body[:ERROR_BODY_CAP].decode("utf-8", "replace")
    try:
        parsed = json.loads(text)
        if isinstance(parsed, dict) and parsed.get("error"):
            text = parsed["error"]
    except ValueError:
        pass
    error_class = LLMTransient if status >= 500 else LLMError
    shown = mask_secrets(error_text(text))  # a server may echo the request's headers
    return error_class(f"{redact_url(where)} answered HTTP {status}: {shown}")
