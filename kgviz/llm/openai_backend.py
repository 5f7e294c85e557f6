"""Backend for any OpenAI-compatible server (vLLM, llama.cpp server, LM Studio, ...)."""

from __future__ import annotations

import os
from typing import Any

import httpx

from kgviz.llm.base import Backend, Message, RawReply
from kgviz.llm.errors import LLMError, LLMTimeout, LLMUnavailable
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
        timeout_s: float = 120.0,
        **defaults: Any,
    ) -> None:
        super().__init__(model, **defaults)
        self.base_url = base_url.rstrip("/")
        self.timeout_s = timeout_s
        key = api_key or os.environ.get(API_KEY_ENV)
        self._headers = {"Authorization": f"Bearer {key}"} if key else {}

    def _request(self, method: str, path: str, **kwargs: Any) -> Any:
        url = f"{self.base_url}{path}"
        try:
            response = httpx.request(
                method, url, headers=self._headers, timeout=self.timeout_s, **kwargs
            )
        except httpx.ConnectError:
            raise LLMUnavailable(
                f"no OpenAI-compatible server at {self.base_url}: start it or fix the URL"
            ) from None
        except httpx.TimeoutException:
            raise LLMTimeout(
                f"{self.base_url} did not answer within {self.timeout_s:g} s (model {self.model})"
            ) from None
        except httpx.HTTPError as exc:
            raise LLMUnavailable(f"connection to {self.base_url} failed: {exc}") from None
        if response.status_code == 404:
            raise LLMUnavailable(
                f"{url} answered 404: the server has no model {self.model!r} or no such endpoint "
                "(check the base URL, usually ending in /v1, and the model name)"
            )
        if response.status_code >= 400:
            raise LLMError(f"{url} answered HTTP {response.status_code}: {response.text[:200]}")
        try:
            return response.json()
        except ValueError:
            raise LLMError(f"malformed reply from {url}: not JSON") from None

    def list_models(self) -> list[str]:
        """Model ids the server lists at /models."""
        data = self._request("GET", "/models")
        try:
            return sorted(item["id"] for item in data["data"])
        except (KeyError, TypeError):
            raise LLMError(f"malformed reply from {self.base_url}/models") from None

    def _generate(
        self, messages: list[Message], schema: dict | None, options: dict[str, Any]
    ) -> RawReply:
        data = self._request(
            "POST", "/chat/completions", json=chat_body(self.model, messages, schema, options)
        )
        return parse_chat_reply(data, self.base_url)

    def describe(self) -> str:
        return f"{self.name}:{self.base_url}#{self.model}"
