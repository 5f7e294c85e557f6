"""Ollama backend (its /api/chat, streamed): the default whenever a server answers."""

from __future__ import annotations

import json
import os
from typing import Any
from urllib.parse import urlsplit

import httpx

from kgviz.llm.base import Message
from kgviz.llm.errors import LLMError, LLMUnavailable
from kgviz.llm.http_backend import MALFORMED, HTTPBackend, problem
from kgviz.llm.http_errors import status_error, transport_error
from kgviz.llm.redact import redact_url
from kgviz.llm.stream_state import StreamState

DEFAULT_PORT = 11434
MODEL_ENV = "KGVIZ_OLLAMA_MODEL"
DEFAULT_OLLAMA_MODEL = "qwen2.5-coder:1.5b"


def ollama_host(value: str | None = None) -> str:
    """Server URL from `value` or `OLLAMA_HOST` ("host", "host:port" or a URL), default loopback."""
    value = (os.environ.get("OLLAMA_HOST", "") if value is None else value).strip()
    if not value:
        return f"http://127.0.0.1:{DEFAULT_PORT}"
    explicit_scheme = "://" in value
    try:
        parts = urlsplit(value if explicit_scheme else f"http://{value}")
        host = parts.hostname or "127.0.0.1"
        port = parts.port or (
            {"https": 443, "http": 80}[parts.scheme] if explicit_scheme else DEFAULT_PORT
        )
    except (ValueError, KeyError):
        raise LLMError(
            f"OLLAMA_HOST {value!r} is not a server address: use host, host:port or "
            "http(s)://host:port"
        ) from None
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}:{port}{parts.path.rstrip('/')}"


def ollama_client_module() -> Any:
    """The `ollama` package, imported once `OLLAMA_HOST` is known to be well-formed (the package
    parses it at import and would raise a traceback)."""
    ollama_host()
    import ollama

    return ollama


def default_ollama_model() -> str:
    return os.environ.get(MODEL_ENV) or DEFAULT_OLLAMA_MODEL


def take_ollama_line(state: StreamState, line: str) -> bool:
    """Feed one line of an /api/chat stream to `state`; True to stop reading."""
    return bool(line.strip()) and take_ollama_reply(state, json.loads(line))


def take_ollama_reply(state: StreamState, part: Any) -> bool:
    """Feed one /api/chat reply object (a streamed line, or the whole reply) to `state`; True to
    stop reading (the last line, an error, or a loop)."""
    if not isinstance(part, dict):
        raise TypeError("a line is not a JSON object")
    if part.get("error"):
        state.error = part["error"]
        return True
    message = part.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str):
        raise TypeError("no message content")
    if content and state.add_text(content):
        return True
    if not part.get("done"):
        return False
    state.finish = part.get("done_reason")
    # Ollama counts cached prompt tokens in `prompt_eval_count` and says how many of them it
    # took from its cache in `prompt_eval_cached_count` (servers before that field: none).
    state.count(
        part.get("prompt_eval_count"), part.get("eval_count"), part.get("prompt_eval_cached_count")
    )
    return True


class OllamaBackend(HTTPBackend):
    """`complete()` through an Ollama server's /api/chat, streamed; a JSON schema goes in
    Ollama's `format`. `list_models` goes through the `ollama` client."""

    name = "ollama"
    parallel_requests = 4  # Ollama's default OLLAMA_NUM_PARALLEL when memory allows
    chat_path = "/api/chat"

    def __init__(
        self,
        model: str | None = None,
        *,
        host: str | None = None,
        timeout_s: float | None = None,
        **defaults: Any,
    ) -> None:
        super().__init__(model or default_ollama_model(), timeout_s=timeout_s, **defaults)
        self.host = self.root = ollama_host(host)
        self.where = f"Ollama at {redact_url(self.host)}"
        self.refused = (
            f"no Ollama server at {redact_url(self.host)}: start it with `ollama serve` "
            "(or point OLLAMA_HOST at a running one)"
        )
        key = os.environ.get("OLLAMA_API_KEY")  # as the `ollama` client sends it
        self.headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._client = ollama_client_module().Client(host=self.host, timeout=self.timeout_s)

    def list_models(self) -> list[str]:
        """Names of the models the server has pulled."""
        reply = self._call(self._client.list)
        return sorted(m.model for m in reply.models if m.model)

    def has_model(self, model: str | None = None) -> bool:
        """Whether `model` (default: this backend's) is pulled; "name" matches "name:latest"."""
        wanted = model or self.model
        names = self.list_models()
        return wanted in names or f"{wanted}:latest" in names

    def _chat_body(
        self, messages: list[Message], schema: dict | None, options: dict[str, Any], stream: bool
    ) -> dict[str, Any]:
        ollama_options = {
            "temperature": options["temperature"],
            "seed": options["seed"],
            "num_predict": options["max_tokens"],
        }
        if options["stop"]:
            ollama_options["stop"] = list(options["stop"])
        body = {"model": self.model, "messages": messages, "options": ollama_options}
        if schema is not None:
            body["format"] = schema
        return {**body, "stream": stream}

    def _take_line(self, state: StreamState, line: str) -> bool:
        return take_ollama_line(state, line)

    def _take_whole(self, state: StreamState, data: Any) -> None:
        take_ollama_reply(state, data)

    def _status_error(self, status: int, body: bytes, url: str) -> LLMError:
        """404 or "not found": the model is not pulled; 5xx may pass; anything else is final."""
        error = status_error(status, body, self.where)
        if status == 404 or "not found" in str(error).lower():
            return LLMUnavailable(
                f"{self.where} has no model {self.model!r}: run `ollama pull {self.model}`"
            )
        return error

    def _call(self, method: Any, **kwargs: Any) -> Any:
        """Run one `ollama` client call, turning transport and server failures into one-line
        errors."""
        ollama = ollama_client_module()
        try:
            return method(**kwargs)
        except ConnectionError:
            raise LLMUnavailable(self.refused) from None
        except ollama.ResponseError as exc:
            raise self._status_error(exc.status_code, str(exc.error).encode(), self.where) from exc
        except httpx.HTTPError as exc:
            raise transport_error(
                exc, self.where, self.timeout_s, self.refused, self.answered
            ) from exc
        except MALFORMED as exc:  # not JSON, or JSON of the wrong shape
            raise LLMError(f"malformed reply from {self.where}: {problem(exc)}") from exc
