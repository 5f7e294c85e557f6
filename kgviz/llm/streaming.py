"""Live replies: the text of LLM replies as it arrives, for whoever listens in this thread.

`kgviz ask` prints it to the terminal and the lab shows it while a run goes on. Every backend
hands over each token as it is generated (a server's reply is read in a worker thread and handed
on in the thread that asked, `deadline.run_with_deadline`); a reply replayed from the cache, or
from a server that answers whole, arrives at once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_local = threading.local()


@contextmanager
def streaming_to(
    listener: Callable[[str], None], on_call: Callable[[str], None] | None = None
) -> Iterator[None]:
    """Send the text of every LLM reply made in this thread to `listener`, and the name of the
    stage making each call to `on_call` before it starts, for the block."""
    previous = getattr(_local, "listener", None), getattr(_local, "on_call", None)
    _local.listener, _local.on_call = listener, on_call
    try:
        yield
    finally:
        _local.listener, _local.on_call = previous


def begin_call(stage: str) -> None:
    """Say that `stage` is about to call the LLM (a new reply follows)."""
    on_call = getattr(_local, "on_call", None)
    if on_call is not None:
        on_call(stage)


def emit(text: str) -> None:
    """Hand `text` (part of a reply) to this thread's listener, if any."""
    if not text:
        return
    _local.emitted = emitted() + len(text)
    listener = getattr(_local, "listener", None)
    if listener is not None:
        listener(text)


def emitted() -> int:
    """How many characters of replies this thread has emitted so far, listened to or not (a
    request that fails after emitting some is not retried: the text would show twice)."""
    return getattr(_local, "emitted", 0)
