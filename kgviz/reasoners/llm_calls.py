"""LLM calls made by reasoners, recorded into the trace (prompt, raw reply, tokens, latency)."""

from __future__ import annotations

from typing import Any

from kgviz.llm.base import LLM, Completion, Message
from kgviz.llm.errors import LLMOutputError
from kgviz.llm.json_completion import complete_json
from kgviz.llm.streaming import begin_call
from kgviz.trace import LLMCall, Trace


def _record(trace: Trace, stage: str, messages: list[Message], completion: Completion) -> None:
    trace.llm_calls.append(LLMCall.from_completion(stage, messages, completion))


def ask_text(trace: Trace, stage: str, llm: LLM, messages: list[Message], **options: Any) -> str:
    """Free-text completion, recorded under `stage`."""
    begin_call(stage)
    completion = llm.complete(messages, **options)
    _record(trace, stage, messages, completion)
    return completion.text


def ask_json(
    trace: Trace, stage: str, llm: LLM, messages: list[Message], schema: dict, **options: Any
) -> Any:
    """Schema-constrained completion (one bounded re-ask), recorded; returns the parsed JSON.

    A reply that stays invalid is recorded with zero tokens and its raw text, then re-raised.
    """
    begin_call(stage)
    try:
        completion = complete_json(llm, messages, schema, **options)
    except LLMOutputError as error:
        trace.llm_calls.append(
            LLMCall(
                stage=stage,
                messages=[dict(m) for m in messages],
                text=error.raw,
                prompt_tokens=0,
                completion_tokens=0,
                latency_s=0.0,
                backend=llm.name,
                model=llm.model,
            )
        )
        raise
    _record(trace, stage, messages, completion)
    return completion.parsed
