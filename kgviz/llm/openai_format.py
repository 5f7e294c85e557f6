"""The OpenAI chat-completions wire format, shared by the HTTP and in-process llama.cpp backends."""

from __future__ import annotations

import json
from typing import Any

from kgviz.llm.base import Message
from kgviz.llm.stream_state import StreamState


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


def streamed(body: dict[str, Any]) -> dict[str, Any]:
    """`body` asking for a streamed reply whose last chunk carries the token counts."""
    return {**body, "stream": True, "stream_options": {"include_usage": True}}


def take_chunk(state: StreamState, chunk: Any) -> bool:
    """Feed one streamed chunk to `state`; True to stop reading (an error, or a loop)."""
    if not isinstance(chunk, dict):
        raise TypeError("a chunk is not a JSON object")
    if chunk.get("error"):
        state.error = chunk["error"]
        return True
    usage = chunk.get("usage")
    if usage:
        details = usage.get("prompt_tokens_details") or {}
        state.count(
            usage.get("prompt_tokens"), usage.get("completion_tokens"), details.get("cached_tokens")
        )
    for choice in chunk.get("choices") or []:
        state.finish = choice.get("finish_reason") or state.finish
        content = (choice.get("delta") or {}).get("content")
        if content is not None and not isinstance(content, str):
            raise TypeError("content is not a string")
        if content and state.add_text(content):
            return True
    return False


def take_event_line(state: StreamState, line: str) -> bool:
    """Feed one line of a server-sent event stream of chunks to `state`; True to stop reading
    (`data: [DONE]`, an error, or a loop)."""
    name, _, value = line.partition(":")
    if name == "data":
        return value.strip() == "[DONE]" or take_chunk(state, json.loads(value))
    if name == "error":  # llama.cpp's server sends its errors as `error: {...}`
        state.error = value.strip()
        return True
    if name in ("", "event", "id", "retry"):  # blank line, comment or another field
        return False
    raise ValueError(f"not a server-sent event line: {line[:80]!r}")


def take_completion(state: StreamState, data: Any) -> None:
    """Feed a whole chat completion (from a server that does not stream) to `state`."""
    try:
        choice = data["choices"][0]
        content = choice["message"]["content"]
    except (KeyError, IndexError, TypeError) as exc:
        raise ValueError(f"not a chat completion ({exc!r})") from None
    if not isinstance(content, str):
        raise TypeError("content is not a string")
    delta = {"delta": {"content": content}, "finish_reason": choice.get("finish_reason")}
    take_chunk(state, {"choices": [delta], "usage": data.get("usage")})
