"""The answer call every method shares (with its one re-ask), and the baselines' answer prompt
(LLM-only, KAPING): a short system prompt, optional facts."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kgviz.llm.base import LLM, Message
from kgviz.llm.soft_prompt import SoftPrompt
from kgviz.reasoners.llm_calls import ask_text
from kgviz.trace import REASK_STAGE, Trace

GENERATION = "generation"  # the stage of the answer call
# The re-ask of a reply that committed to no answer, for prompts asking for names only.
NAMES_REASK = (
    "Your reply named no answer. Reply again with only the answer names, separated by "
    "commas. If you are unsure, give your best guess."
)

SYSTEM_PROMPT = (
    "You answer factual questions. Reply with the answer names only, separated by "
    "commas, with no explanation."
)
FACTS_HEADER = (
    "Below are facts in the form of triples that might be relevant to answer the question:"
)


def own_entities_problem(listing: str, asked: Sequence[str]) -> str:
    """A re-ask's account of an answer listing only the question's own entities `asked`;
    `listing` says where they were listed ("Your answer lists")."""
    return (
        f"{listing} {', '.join(dict.fromkeys(asked))}, which the question itself names; the "
        "question asks for the entities linked to it."
    )


def answer_messages(question: str, facts: Sequence[str] = ()) -> list[Message]:
    """The chat messages asking `question`, with `facts` (one per line) prepended when given."""
    context = [FACTS_HEADER, *facts, ""] if facts else []
    user = "\n".join([*context, f"Question: {question}", "Answer:"])
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def reask_messages(messages: list[Message], reply: str | None, reask: str) -> list[Message]:
    """The conversation so far, the reply that committed to nothing (unless None: not shown),
    and the re-ask."""
    shown: list[Message] = [] if reply is None else [{"role": "assistant", "content": reply}]
    return [*messages, *shown, {"role": "user", "content": reask}]


def generate_answer(
    trace: Trace,
    llm: LLM,
    messages: list[Message],
    max_tokens: int,
    extract: Callable[[str], list[str]],
    reask: str | Callable[[str], str] = NAMES_REASK,
    fallback: Callable[[str], list[str]] | None = None,
    reask_shows_reply: bool = True,
    soft_prompt: SoftPrompt | None = None,
    answer_reask: bool = True,
) -> str:
    """The answer call under the `generation` stage: sets `trace.answer` to the reply and
    `trace.answers` to what `extract` finds in it (the method's committed answers, in order).

    A reply that commits to nothing gets one re-ask (`reask`, restating the answer format, or a
    function of the reply that says what was wrong with it; the trace records it under the stage
    `reask`); its reply becomes the answer when it commits. With `reask_shows_reply` False the
    re-ask follows the question directly, without the failed reply (a small model otherwise
    repeats it). Without `answer_reask` there is no re-ask.
    When neither commits, `fallback` (the method's last resort, `Reasoner.listed_answers`) reads
    the kept first reply. A `soft_prompt` (GRAG's graph token) goes before both requests.
    LLM failures propagate as `LLMError` (a `KgvizError` with a one-line message).
    """
    with trace.stage(GENERATION):
        reply = ask_text(
            trace, GENERATION, llm, messages, max_tokens=max_tokens, soft_prompt=soft_prompt
        ).strip()
        answers = extract(reply)
        if not answers and answer_reask:
            second = ask_text(
                trace,
                REASK_STAGE,
                llm,
                reask_messages(
                    messages,
                    reply if reask_shows_reply else None,
                    reask if isinstance(reask, str) else reask(reply),
                ),
                max_tokens=max_tokens,
                soft_prompt=soft_prompt,
            ).strip()
            answers = extract(second)
            if answers:
                reply = second
        if not answers and fallback is not None:
            answers = fallback(reply)
    trace.answer, trace.answers = reply, answers
    return reply
