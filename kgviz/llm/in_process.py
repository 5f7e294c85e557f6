"""The skeleton of a backend whose model runs in this process and thread: it checks the request's
deadline and cancellation itself, between steps of its work, instead of abandoning a worker."""

from __future__ import annotations

import threading
from typing import Any

from kgviz.llm.base import Backend, Message, RawReply
from kgviz.llm.deadline import RequestWatch


class InProcessBackend(Backend):
    """A backend that generates in the calling thread; `_generate` asks `watch()` for the
    request's deadline and cancellation flag and stops between tokens once it has expired."""

    retries_transient = False  # the same prompt on the same model would time out again
    streams = True  # hands each token to `streaming.emit` as it is generated

    def __init__(self, model: str, **defaults: Any) -> None:
        super().__init__(model, **defaults)
        self._request = threading.local()  # the watch of this thread's request in flight

    def watch(self) -> RequestWatch | None:
        """The deadline and cancellation flag of this thread's request (None outside one)."""
        return getattr(self._request, "watch", None)

    def _bounded_generate(
        self,
        messages: list[Message],
        schema: dict | None,
        options: dict[str, Any],
        deadline: float,
    ) -> RawReply:
        with RequestWatch(self.timeout_s, self.describe(), deadline) as watch:
            if watch.expired():
                watch.raise_expired()
            self._request.watch = watch
            try:
                return self._generate(messages, schema, options)
            finally:
                self._request.watch = None
