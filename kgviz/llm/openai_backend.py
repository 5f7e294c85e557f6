"""Backend for any OpenAI-compatible server (vLLM, llama.cpp server, LM Studio, ...)."""

from __future__ import annotations

import json
import os
from typing import Any

from kgviz.llm.base import Message
from kgviz.llm.errors import LLMError, LLMUnavailable
from kgviz.llm.http_backend import HTTPBackend
from kgviz.llm.http_errors import REPLY_CAP, read_capped, status_error
from kgviz.llm.openai_format import chat_body, streamed, take_completion, take_event_line
from kgviz.llm.redact import redact_url
from kgviz.llm.stream_state import StreamState

API_KEY_ENV = "KGVIZ_OPENAI_API_KEY"


class OpenAIBackend(HTTPBackend):
    """`complete()` via POST {base_url}/chat/completions, streamed as server-sent events; a
    schema goes in `response_format`.

    `base_url` is the API root, e.g. "http://127.0.0.1:8000/v1". The bearer token, if the
    server wants one, comes from `api_key` or `KGVIZ_OPENAI_API_KEY`.
    """

    name = "openai"
    parallel_requests = 8  # servers such as vLLM or llama-server batch concurrent requests
    chat_path = "/chat/completions"

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout_s: float | None = None,
        **defaults: Any,
    ) -> None:
        super().__init__(model, timeout_s=timeout_s, **defaults)
        self.base_url = self.root = base_url.rstrip("/")
        self.where = redact_url(self.base_url)  # how messages and records name it: no password
        self.refused = f"no OpenAI-compatible server at {self.where}: start it or fix the address"
        key = api_key or os.environ.get(API_KEY_ENV)
        self.headers = {"Authorization": f"Bearer {key}"} if key else {}

    def list_models(self) -> list[str]:
        """Model ids the server lists at /models."""
        url = f"{self.base_url}/models"
        with self._connection() as client, client.stream("GET", url) as response:
            self._check(response, url)
            body = read_capped(response.iter_bytes(), REPLY_CAP)
        try:
            return sorted(item["id"] for item in json.loads(body)["data"])
        except (ValueError, KeyError, TypeError) as exc:
            raise LLMError(f"malformed reply from {redact_url(url)}") from exc

    def _chat_body(
        self, messages: list[Message], schema: dict | None, options: dict[str, Any], stream: bool
    ) -> dict[str, Any]:
        body = chat_body(self.model, messages, schema, options)
        return streamed(body) if stream else body

    def _take_line(self, state: StreamState, line: str) -> bool:
        return take_event_line(state, line)

    def _take_whole(self, state: StreamState, data: Any) -> None:
        take_completion(state, data)

    def _status_error(self, status: int, body: bytes, url: str) -> LLMError:
        if status == 404:
            return LLMUnavailable(
                f"{redact_url(url)} answered 404: the server has no model {self.model!r} or no "
                "such endpoint (check the base URL, usually ending in /v1, and the model name)"
            )
        return status_error(status, body, url)

    def describe(self) -> str:
        return f"{self.name}:{self.where}#{self.model}"
