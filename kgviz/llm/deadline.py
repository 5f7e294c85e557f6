"""Every LLM request has a total deadline, stops on Ctrl-C, and can be cancelled from any thread.

An HTTP read timeout bounds each read, not the request: a server that sends one byte every few
seconds never trips it. So a request runs in a worker thread while the calling thread waits in
short slices: past the deadline, on Ctrl-C or on `cancel_requests()` it aborts the request (the
backend closes its connection) and raises at once. Meanwhile it hands the text the worker emits
(a streamed reply) to its own listener (`streaming.py`). Nothing here uses signals, so it works
in widget and worker threads alike.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Callable
from typing import Any, NoReturn, Self, TypeVar

from kgviz.llm.errors import LLMCancelled, LLMError, LLMTimeout
from kgviz.llm.streaming import emit, streaming_to

T = TypeVar("T")
TIMEOUT_ENV = "KGVIZ_LLM_TIMEOUT"
DEFAULT_TIMEOUT_S = 120.0
POLL_S = 0.1  # how often a waiting caller looks at the clock and for cancellation

_in_flight: set[threading.Event] = set()
_in_flight_lock = threading.Lock()
_refusing = threading.Event()  # set while a cancelled run winds down: new requests fail at once


def llm_timeout(backend_default: float | None = None) -> float:
    """Total seconds one LLM request may take: `KGVIZ_LLM_TIMEOUT`, else the backend's own
    default, else 120."""
    value = os.environ.get(TIMEOUT_ENV, "").strip()
    if not value:
        return DEFAULT_TIMEOUT_S if backend_default is None else backend_default
    try:
        seconds = float(value)
    except ValueError:
        raise LLMError(f"{TIMEOUT_ENV} must be a number of seconds, got {value!r}") from None
    if not seconds > 0:
        raise LLMError(f"{TIMEOUT_ENV} must be above 0, got {value!r}")
    return seconds


def cancel_requests(until_allowed: bool = False) -> None:
    """Cancel every LLM request in flight in this process (each raises `LLMCancelled`); with
    `until_allowed`, requests made before `allow_requests()` are cancelled as they start."""
    if until_allowed:
        _refusing.set()
    with _in_flight_lock:
        for cancelled in _in_flight:
            cancelled.set()


def allow_requests() -> None:
    """Let requests run again after `cancel_requests(until_allowed=True)`."""
    _refusing.clear()


class RequestWatch:
    """One request's deadline and cancellation flag, for backends that check them themselves
    (the in-process model checks between tokens)."""

    def __init__(self, seconds: float, what: str, deadline: float | None = None) -> None:
        """`seconds` is the request's whole allowance; `deadline` (monotonic time) the moment it
        runs out, when part of it was spent before (on earlier attempts)."""
        self.seconds, self.what = seconds, what
        self.deadline = time.monotonic() + seconds if deadline is None else deadline
        self.cancelled = threading.Event()

    def __enter__(self) -> Self:
        with _in_flight_lock:
            _in_flight.add(self.cancelled)
        if _refusing.is_set():
            self.cancelled.set()
        return self

    def __exit__(self, *exc: object) -> None:
        with _in_flight_lock:
            _in_flight.discard(self.cancelled)

    def expired(self) -> bool:
        return self.cancelled.is_set() or time.monotonic() > self.deadline

    def raise_expired(self) -> NoReturn:
        """The error for an expired request: cancelled, or past its deadline."""
        if self.cancelled.is_set():
            raise LLMCancelled(f"the request to {self.what} was cancelled")
        raise LLMTimeout(
            f"{self.what} did not finish within {self.seconds:g} s "
            f"(set {TIMEOUT_ENV} to allow more)"
        )


def run_with_deadline(
    work: Callable[[], T],
    seconds: float,
    abort: Callable[[], None],
    what: str,
    deadline: float | None = None,
) -> T:
    """`work()` in a worker thread, waited for until `deadline` (default: `seconds` from now);
    `abort()` is called when the wait ends early (deadline, cancellation, Ctrl-C) to release
    the worker's connection. The text `work` emits reaches this thread's listener as it comes."""
    outbox: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()

    def target() -> None:
        try:
            with streaming_to(lambda text: outbox.put(("text", text))):
                outbox.put(("value", work()))
        except BaseException as error:  # noqa: BLE001  (handed to the waiting caller)
            outbox.put(("error", error))

    with RequestWatch(seconds, what, deadline) as watch:
        if watch.expired():
            watch.raise_expired()
        threading.Thread(target=target, daemon=True, name="kgviz-llm-request").start()
        kind, result = _relay(outbox, watch, abort)
    if kind == "error":
        raise result
    return result


def _relay(
    outbox: queue.SimpleQueue[tuple[str, Any]], watch: RequestWatch, abort: Callable[[], None]
) -> tuple[str, Any]:
    """Emit the worker's text until it ends ("value" or "error", and what); past the deadline,
    on cancellation, Ctrl-C or a failing listener, abort it and raise."""
    try:
        while not watch.expired():
            try:
                kind, item = outbox.get(timeout=POLL_S)
            except queue.Empty:
                continue
            if kind != "text":
                return kind, item
            emit(item)
    except BaseException:
        abort()
        raise
    abort()
    watch.raise_expired()
