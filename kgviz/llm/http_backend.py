"""Chat servers over HTTP (Ollama, OpenAI-compatible), whose replies stream in line by line.

Each attempt runs in a worker thread under the request's total deadline (`deadline.py`), over a
connection of its own: giving up closes it and leaves other requests in flight alone. Each line
goes to the protocol's reader; the text it finds reaches the live reply and the loop guard, and
when the guard sees a loop, reading stops and the connection is closed.
"""

from __future__ import annotations

import json
import threading
from abc import abstractmethod
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from kgviz.llm.base import Backend, Message, RawReply
from kgviz.llm.deadline import run_with_deadline
from kgviz.llm.errors import LLMError
from kgviz.llm.http_errors import (
    CONNECT_TIMEOUT_S,
    ERROR_BODY_CAP,
    REPLY_CAP,
    error_text,
    read_capped,
    transport_error,
)
from kgviz.llm.redact import redact_url
from kgviz.llm.repetition import LoopGuard
from kgviz.llm.stream_state import StreamState

# What reading a reply of the wrong shape raises (JSON that does not parse is a ValueError)
MALFORMED = (ValueError, TypeError, KeyError, IndexError, AttributeError)


def capped_lines(chunks: Iterable[bytes], cap: int) -> Iterator[str]:
    """The lines of a body as each arrives (the last may lack its newline); `ValueError` once
    the body passes `cap` bytes."""
    pending, total = bytearray(), 0
    for chunk in chunks:
        total += len(chunk)
        if total > cap:
            raise ValueError(f"the reply passed {cap} bytes")
        *ends, rest = chunk.split(b"\n")
        for end in ends:
            pending += end
            yield pending.decode().rstrip("\r")
            pending.clear()
        pending += rest
    if pending.strip():
        yield pending.decode()


def problem(error: Exception) -> str:
    """What was wrong with a malformed reply, in a few words."""
    if isinstance(error, json.JSONDecodeError):
        return "not JSON"
    return (str(error) or type(error).__name__).splitlines()[0]


class HTTPBackend(Backend):
    """A chat server over HTTP; replies stream. Subclasses set `root` (the URL paths hang
    under), `where` (how errors name the server), `refused` (the error when nothing listens)
    and `headers`, and give the protocol: the chat request, how to read a line of its stream
    or a whole reply, and what an HTTP error status means.

    Until the server has answered once, a connection that fails in any way means no server: the
    error is final at once (`transport_error`), not retried for seconds."""

    streams = True
    answered = False  # the server has sent a reply (any status) to this backend
    chat_path: str
    root: str
    where: str
    refused: str
    headers: dict[str, str]

    def identity(self) -> str:
        return redact_url(self.root)

    @abstractmethod
    def _chat_body(
        self, messages: list[Message], schema: dict | None, options: dict[str, Any], stream: bool
    ) -> dict[str, Any]:
        """The chat request, streamed or not."""

    @abstractmethod
    def _take_line(self, state: StreamState, line: str) -> bool:
        """Feed one line of the stream to `state`; True when reading should stop."""

    @abstractmethod
    def _take_whole(self, state: StreamState, data: Any) -> None:
        """Feed a whole (JSON) reply to `state`."""

    @abstractmethod
    def _status_error(self, status: int, body: bytes, url: str) -> LLMError:
        """The error an HTTP error reply stands for (`body`: its start)."""

    # The connection of the attempt a worker thread runs (each attempt has a thread of its own)
    _attempt = threading.local()

    def _bounded_generate(
        self,
        messages: list[Message],
        schema: dict | None,
        options: dict[str, Any],
        deadline: float,
    ) -> RawReply:
        """One attempt in a worker thread over a connection of its own, which giving up
        (deadline, cancellation, Ctrl-C) closes."""
        transport = httpx.HTTPTransport()

        def attempt() -> RawReply:
            self._attempt.transport = transport
            return self._generate(messages, schema, options)

        return run_with_deadline(
            attempt, self.timeout_s, transport.close, self.describe(), deadline
        )

    def _generate(
        self, messages: list[Message], schema: dict | None, options: dict[str, Any]
    ) -> RawReply:
        """Stream one reply over the attempt's connection. A stream that gave no token counts
        (the loop guard stopped it) gets the prompt's from a one-token request."""
        state = StreamState(LoopGuard(watching=schema is None and options["loop_guard"]))
        with self._connection(getattr(self._attempt, "transport", None)) as client:
            self._exchange(client, self._chat_body(messages, schema, options, True), state)
            if not state.usage:
                probe = StreamState(LoopGuard(watching=False), emitting=False)
                one_token = {**options, "max_tokens": 1}
                self._exchange(client, self._chat_body(messages, schema, one_token, False), probe)
                state.count(probe.usage.get("prompt_tokens", 0), None)
        return state.reply()

    @contextmanager
    def _connection(self, transport: httpx.BaseTransport | None = None) -> Iterator[httpx.Client]:
        """A client over `transport` (default: a new one) whose transport failures become
        one-line errors."""
        timeout = httpx.Timeout(self.timeout_s, connect=min(CONNECT_TIMEOUT_S, self.timeout_s))
        try:
            with httpx.Client(transport=transport, headers=self.headers, timeout=timeout) as client:
                yield client
        except httpx.HTTPError as exc:
            raise transport_error(
                exc, self.where, self.timeout_s, self.refused, self.answered
            ) from exc

    def _exchange(self, client: httpx.Client, body: dict[str, Any], state: StreamState) -> None:
        """POST a chat request and feed its reply to `state` as it comes."""
        url = self.root + self.chat_path
        with client.stream("POST", url, json=body) as response:
            self._check(response, url)
            try:
                self._read(response, state)
            except MALFORMED as exc:
                raise LLMError(f"malformed reply from {self.where}: {problem(exc)}") from exc
        if state.error is not None:
            raise LLMError(f"{self.where} stopped with an error: {error_text(state.error)}")

    def _read(self, response: httpx.Response, state: StreamState) -> None:
        """Feed the reply to `state` line by line, or whole when it is one JSON object (a
        request that asked not to stream, or a server that does not)."""
        if response.headers.get("content-type", "").startswith("application/json"):
            self._take_whole(state, json.loads(read_capped(response.iter_bytes(), REPLY_CAP)))
            return
        for line in capped_lines(response.iter_bytes(), REPLY_CAP):
            if self._take_line(state, line):
                return
        raise ValueError("the stream ended before its last line")

    def _check(self, response: httpx.Response, url: str) -> None:
        """Note that the server answered; raise the error an HTTP error reply stands for."""
        self.answered = True
        if response.status_code >= 400:
            body = read_capped(response.iter_bytes(), ERROR_BODY_CAP)
            raise self._status_error(response.status_code, body, url)
