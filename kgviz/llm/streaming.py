"""Live replies: the text of LLM replies as it arrives, for whoever listens in this thread.

`kgviz ask` prints it to the terminal and the lab shows it while a run goes on. The in-process
model hands over each token as it is generated; a backend that answers whole, and a reply
replayed from the cache, hand over the whole text at once.
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
    listener = getattr(_local, "listener", None)
    if listener is not None and text:
        listener(text)
