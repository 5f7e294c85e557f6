"""`complete_json`: ask a model for JSON matching a schema, re-asking with the problem before
giving up."""

from __future__ import annotations

import dataclasses
from typing import Any

from kgviz.llm.base import LLM, Completion, Message
from kgviz.llm.errors import LLMOutputError
from kgviz.llm.parsing import parse_reply


def complete_json(
    llm: LLM,
    messages: list[Message],
    schema: dict,
    *,
    retries: int = 1,
    constrained: bool = True,
    **options: Any,
) -> Completion:
    """Ask for JSON matching `schema`; re-ask up to `retries` times, quoting the problem.

    `constrained=False` leaves the schema out of the request (for backends whose constrained
    decoding is unavailable) and relies on tolerant parsing. Raises `LLMOutputError` with the
    last raw reply when every attempt fails. The returned Completion is the successful attempt.
    """
    conversation = list(messages)
    for attempt in range(retries + 1):
        try:
            completion = llm.complete(conversation, schema if constrained else None, **options)
            raw, (parsed, problem) = completion.text, parse_reply(completion.text, schema)
        except LLMOutputError as exc:
            raw, problem = exc.raw, str(exc)
        if problem is None:
            return dataclasses.replace(completion, parsed=parsed)
        if attempt < retries:
            conversation += [
                {"role": "assistant", "content": raw[:2000]},
                {
                    "role": "user",
                    "content": f"That reply was not valid: {problem}. "
                    "Answer again with only the JSON, no other text.",
                },
            ]
    raise LLMOutputError(
        f"{llm.describe()} gave no valid JSON after {retries + 1} attempt(s): {problem}", raw
    )
