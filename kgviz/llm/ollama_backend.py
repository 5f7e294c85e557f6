"""Ollama backend (the `ollama` client): the default whenever a server answers."""

from __future__ import annotations

import json
import os
from typing import Any
from urllib.parse import urlsplit

import httpx

from kgviz.llm.base import Backend, Message, RawReply
from kgviz.llm.errors import LLMError, LLMUnavailable
from kgviz.llm.http_errors import status_error, transport_error

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


class OllamaBackend(Backend):
    """`complete()` through an Ollama server; a JSON schema goes in Ollama's `format`."""

    name = "ollama"
    parallel_requests = 4  # Ollama's default OLLAMA_NUM_PARALLEL when memory allows

    def __init__(
        self,
        model: str | None = None,
        *,
        host: str | None = None,
        timeout_s: float | None = None,
        **defaults: Any,
    ) -> None:
        super().__init__(model or default_ollama_model(), timeout_s=timeout_s, **defaults)
        self.host = ollama_host(host)
        self._connect()

    def _connect(self) -> None:
        """A client over a transport of its own, which `_abort` can close mid-request."""
        self._transport = httpx.HTTPTransport()
        self._client = ollama_client_module().Client(
            host=self.host, timeout=self.timeout_s, transport=self._transport
        )

    def _abort(self) -> None:
        transport = self._transport
        self._connect()
        transport.close()

    def list_models(self) -> list[str]:
        """Names of the models the server has pulled."""
        reply = self._call(self._client.list)
        return sorted(m.model for m in reply.models if m.model)

    def has_model(self, model: str | None = None) -> bool:
        """Whether `model` (default: this backend's) is pulled; "name" matches "name:latest"."""
        wanted = model or self.model
        names = self.list_models()
        return wanted in names or f"{wanted}:latest" in names

    def _generate(
        self, messages: list[Message], schema: dict | None, options: dict[str, Any]
    ) -> RawReply:
        ollama_options = {
            "temperature": options["temperature"],
            "seed": options["seed"],
            "num_predict": options["max_tokens"],
        }
        if options["stop"]:
            ollama_options["stop"] = list(options["stop"])
        reply = self._call(
            self._client.chat,
            model=self.model,
            messages=messages,
            format=schema,
            options=ollama_options,
            stream=False,
        )
        text = reply.message.content if reply.message else None
        if not isinstance(text, str):
            raise LLMError(f"malformed reply from Ollama at {self.host}: no message content")
        return RawReply(
            text,
            reply.prompt_eval_count or 0,
            reply.eval_count or 0,
            truncated=reply.done_reason == "length",
        )

    def _call(self, method: Any, **kwargs: Any) -> Any:
        """Run one client call, turning transport and server failures into one-line errors
        (5xx, dropped connections and timeouts are transient: the caller retries them)."""
        where = f"Ollama at {self.host}"
        ollama = ollama_client_module()
        try:
            return method(**kwargs)
        except ConnectionError:
            raise LLMUnavailable(
                f"no Ollama server at {self.host}: start it with `ollama serve` "
                "(or point OLLAMA_HOST at a running one)"
            ) from None
        except ollama.ResponseError as exc:
            if exc.status_code == 404 or "not found" in str(exc.error).lower():
                raise LLMUnavailable(
                    f"{where} has no model {self.model!r}: run `ollama pull {self.model}`"
                ) from exc
            raise status_error(exc.status_code, str(exc.error).encode(), where) from exc
        except httpx.HTTPError as exc:
            raise transport_error(exc, where, self.timeout_s) from exc
        except json.JSONDecodeError as exc:
            raise LLMError(f"malformed reply from {where}: not JSON") from exc
        except (ValueError, TypeError, KeyError, AttributeError) as exc:  # JSON of the wrong shape
            first_line = (str(exc) or type(exc).__name__).splitlines()[0]
            raise LLMError(f"malformed reply from {where}: {first_line}") from exc
