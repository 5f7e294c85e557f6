"""`complete_json`: ask a model for JSON matching a schema, re-asking with the problem before
giving up."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from kgviz.llm.base import LLM, Completion, Message
from kgviz.llm.errors import LLMOutputError
from kgviz.llm.parsing import parse_reply

# Told of every attempt: the messages sent, the reply (None when none came) and, for a reply
# that was not accepted, its problem ('' for the accepted one).
AttemptListener = Callable[[list[Message], Completion | None, str, str], None]


def complete_json(
    llm: LLM,
    messages: list[Message],
    schema: dict,
    *,
    retries: int = 1,
    constrained: bool = True,
    on_attempt: AttemptListener | None = None,
    **options: Any,
) -> Completion:
    """Ask for JSON matching `schema`; re-ask up to `retries` times, quoting the problem.

    `constrained=False` leaves the schema out of the request (for backends whose constrained
    decoding is unavailable) and relies on tolerant parsing. `on_attempt(messages, completion,
    raw, problem)` hears of each request, so that a trace records every one. Raises
    `LLMOutputError` with the last raw reply when every attempt fails. The returned Completion
    is the successful attempt.
    """
    conversation = list(messages)
    for attempt in range(retries + 1):
        completion: Completion | None
        try:
            completion = llm.complete(conversation, schema if constrained else None, **options)
            raw, (parsed, problem) = completion.text, parse_reply(completion.text, schema)
        except LLMOutputError as exc:
            completion, raw, problem = exc.completion, exc.raw, str(exc)
        if on_attempt is not None:
            on_attempt(list(conversation), completion, raw, problem or "")
        if problem is None and completion is not None:
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
