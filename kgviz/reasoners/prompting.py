"""The answer prompt of the baselines (LLM-only, KAPING): a short system prompt, optional facts."""

from __future__ import annotations

from collections.abc import Sequence

from kgviz.llm.base import LLM, Message
from kgviz.reasoners.llm_calls import ask_text
from kgviz.trace import Trace

SYSTEM_PROMPT = ("You answer factual questions. Reply with the answer names only, separated by "
                 "commas, with no explanation.")
FACTS_HEADER = ("Below are facts in the form of triples that might be relevant to answer the "
                "question:")


def answer_messages(question: str, facts: Sequence[str] = ()) -> list[Message]:
    """The chat messages asking `question`, with `facts` (one per line) prepended when given."""
    context = [FACTS_HEADER, *facts, ""] if facts else []
    user = "\n".join([*context, f"Question: {question}", "Answer:"])
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def generate_answer(trace: Trace, llm: LLM, messages: list[Message], max_tokens: int) -> str:
    """One LLM call under the `generation` stage; sets and returns `trace.answer`.

    LLM failures propagate as `LLMError` (a `KgvizError` with a one-line message).
    """
    with trace.stage("generation"):
        trace.answer = ask_text(trace, "generation", llm, messages, max_tokens=max_tokens).strip()
    return trace.answer
