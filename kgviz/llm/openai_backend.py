"""Backend for any OpenAI-compatible server (vLLM, llama.cpp server, LM Studio, ...)."""

from __future__ import annotations

import json
import os
from typing import Any

import httpx

from kgviz.llm.base import Backend, Message, RawReply
from kgviz.llm.errors import LLMError, LLMUnavailable
from kgviz.llm.http_errors import (
    ERROR_BODY_CAP,
    REPLY_CAP,
    read_capped,
    status_error,
    transport_error,
)
from kgviz.llm.openai_format import chat_body, parse_chat_reply

API_KEY_ENV = "KGVIZ_OPENAI_API_KEY"


class OpenAIBackend(Backend):
    """`complete()` via POST {base_url}/chat/completions; a schema goes in `response_format`.

    `base_url` is the API root, e.g. "http://127.0.0.1:8000/v1". The bearer token, if the
    server wants one, comes from `api_key` or `KGVIZ_OPENAI_API_KEY`.
    """

    name = "openai"
    parallel_requests = 8  # servers such as vLLM or llama-server batch concurrent requests

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
        self.base_url = base_url.rstrip("/")
        key = api_key or os.environ.get(API_KEY_ENV)
        self._headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._transport: httpx.HTTPTransport | None = None

    def _abort(self) -> None:
        """Close the connections, so a request given up on stops reading."""
        transport, self._transport = self._transport, None
        if transport is not None:
            transport.close()

    def _request(self, method: str, path: str, **kwargs: Any) -> Any:
        url = f"{self.base_url}{path}"
        if self._transport is None:
            self._transport = httpx.HTTPTransport()
        try:
            with (
                httpx.Client(
                    transport=self._transport, headers=self._headers, timeout=self.timeout_s
                ) as client,
                client.stream(method, url, **kwargs) as response,
            ):
                status = response.status_code
                cap = REPLY_CAP if status < 400 else ERROR_BODY_CAP
                body = read_capped(response.iter_bytes(), cap)
        except httpx.HTTPError as exc:
            raise transport_error(
                exc, self.base_url, self.timeout_s, "OpenAI-compatible server"
            ) from exc
        if status == 404:
            raise LLMUnavailable(
                f"{url} answered 404: the server has no model {self.model!r} or no such endpoint "
                "(check the base URL, usually ending in /v1, and the model name)"
            )
        if status >= 400:
            raise status_error(status, body, url)
        try:
            return json.loads(body)
        except ValueError as exc:
            raise LLMError(f"malformed reply from {url}: not JSON") from exc

    def list_models(self) -> list[str]:
        """Model ids the server lists at /models."""
        data = self._request("GET", "/models")
        try:
            return sorted(item["id"] for item in data["data"])
        except (KeyError, TypeError) as exc:
            raise LLMError(f"malformed reply from {self.base_url}/models") from exc

    def _generate(
        self, messages: list[Message], schema: dict | None, options: dict[str, Any]
    ) -> RawReply:
        data = self._request(
            "POST", "/chat/completions", json=chat_body(self.model, messages, schema, options)
        )
        return parse_chat_reply(data, self.base_url)

    def describe(self) -> str:
        return f"{self.name}:{self.base_url}#{self.model}"
