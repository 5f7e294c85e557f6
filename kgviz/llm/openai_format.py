"""The OpenAI chat-completions wire format, shared by the HTTP and in-process llama.cpp backends."""

from __future__ import annotations

from typing import Any

from kgviz.llm.base import Message, RawReply
from kgviz.llm.errors import LLMError


def chat_body(
    model: str, messages: list[Message], schema: dict | None, options: dict[str, Any]
) -> dict[str, Any]:
    """A non-streaming /v1/chat/completions request; a schema becomes `response_format`."""
    body: dict[str, Any] = {
        "model": model,
        "messages": messages,
        "temperature": options["temperature"],
        "seed": options["seed"],
        "max_tokens": options["max_tokens"],
        "stream": False,
    }
    if options["stop"]:
        body["stop"] = list(options["stop"])
    if schema is not None:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "reply", "schema": schema, "strict": True},
        }
    return body


def parse_chat_reply(data: Any, where: str) -> RawReply:
    """Text and token counts of a chat-completions reply; `LLMError` if it is not one."""
    try:
        choice = data["choices"][0]
        text = choice["message"]["content"]
        usage = data.get("usage") or {}
        if not isinstance(text, str):
            raise TypeError("content is not a string")
        return RawReply(
            text,
            int(usage.get("prompt_tokens", 0)),
            int(usage.get("completion_tokens", 0)),
            truncated=choice.get("finish_reason") == "length",
        )
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
        raise LLMError(f"malformed reply from {where}: not a chat completion ({exc})") from exc
