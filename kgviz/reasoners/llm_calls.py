"""LLM calls made by reasoners, recorded into the trace (prompt, raw reply, tokens, latency):
one `LLMCall` per request the model received, re-asks and retried failures included."""

from __future__ import annotations

from typing import Any

from kgviz.llm.base import LLM, Completion, Message
from kgviz.llm.json_completion import complete_json
from kgviz.llm.streaming import begin_call
from kgviz.trace import LLMCall, Trace


def record_call(
    trace: Trace,
    stage: str,
    llm: LLM,
    messages: list[Message],
    completion: Completion | None,
    raw: str = "",
    problem: str = "",
) -> None:
    """Record one request of `stage`: first the failures retried before its reply, then the
    reply (a reply `problem` names was not used; one that never came costs nothing known)."""
    for failure in completion.retried if completion is not None else ():
        trace.llm_calls.append(
            LLMCall(
                stage,
                [dict(m) for m in messages],
                "",
                0,
                0,
                0.0,
                llm.name,
                llm.model,
                problem=failure,
            )
        )
    if completion is None:
        call = LLMCall(stage, [dict(m) for m in messages], raw, 0, 0, 0.0, llm.name, llm.model)
    else:
        call = LLMCall.from_completion(stage, messages, completion)
    call.problem = problem
    trace.llm_calls.append(call)


def ask_text(trace: Trace, stage: str, llm: LLM, messages: list[Message], **options: Any) -> str:
    """Free-text completion, recorded under `stage`."""
    begin_call(stage)
    completion = llm.complete(messages, **options)
    record_call(trace, stage, llm, messages, completion)
    return completion.text


def ask_json(
    trace: Trace, stage: str, llm: LLM, messages: list[Message], schema: dict, **options: Any
) -> Any:
    """Schema-constrained completion with one bounded re-ask (`complete_json`); every attempt
    is recorded under `stage`. Returns the parsed JSON; raises `LLMOutputError` when the reply
    stays invalid."""
    begin_call(stage)

    def recorded(
        sent: list[Message], completion: Completion | None, raw: str, problem: str
    ) -> None:
        record_call(trace, stage, llm, sent, completion, raw, problem)

    return complete_json(llm, messages, schema, on_attempt=recorded, **options).parsed
