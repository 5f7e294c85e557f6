"""The answer calls every method shares, each with its one re-ask: a free-text reply read by the
method's rules (`generate_answer`), or a JSON list of names, constrained to the evidence's names,
that stops once the answers are given (`generate_listed_answer`, the tuned presets'); and the
baselines' answer prompt (LLM-only, KAPING): a short system prompt, optional facts."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence

from kgviz.llm.base import LLM, Message
from kgviz.llm.errors import LLMOutputError
from kgviz.llm.soft_prompt import SoftPrompt
from kgviz.reasoners.llm_calls import ask_json, ask_text
from kgviz.trace import REASK_STAGE, Trace

GENERATION = "generation"  # the stage of the answer call
ANSWERING_STAGES = (GENERATION, REASK_STAGE)  # the answer call and its re-ask
# The re-ask of a reply that committed to no answer, for prompts asking for names only.
NAMES_REASK = (
    "Your reply named no answer. Reply again with only the answer names, separated by "
    "commas. If you are unsure, give your best guess."
)

SYSTEM_PROMPT = (
    "You answer factual questions. Reply with the answer names only, separated by "
    "commas, with no explanation."
)
ANSWERS_KEY = "answers"
LISTED_ANSWERS = 10  # most names an answer list holds
LIST_TOKENS = 192  # a bound the constrained list cannot pass (10 names, JSON around them)
LIST_FORMAT = (
    'Reply with JSON only, {"answers": ["name", ...]}: the names from the facts that answer the '
    "question, the most likely first, spelled exactly as there."
)
LIST_SYSTEM = f"You answer factual questions. {LIST_FORMAT}"
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


def answer_messages(
    question: str, facts: Sequence[str] = (), listed: bool = False
) -> list[Message]:
    """The chat messages asking `question`, with `facts` (one per line) prepended when given;
    `listed` asks for the JSON answer list instead of comma-separated names."""
    context = [FACTS_HEADER, *facts, ""] if facts else []
    user = "\n".join([*context, f"Question: {question}", "Answer:"])
    system = LIST_SYSTEM if listed else SYSTEM_PROMPT
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def answer_list_schema(choices: Iterable[str], at_least: int = 0) -> dict:
    """The JSON schema of an answer list: at most `LISTED_ANSWERS` names, each one of `choices`
    (the evidence's names) or, with no choices, any short text; at least `at_least` of them.

    >>> answer_list_schema(["Ron Howard", "Big"])["properties"]["answers"]["items"]
    {'type': 'string', 'enum': ['Big', 'Ron Howard']}
    """
    names = sorted(set(choices))
    item = {"type": "string", "enum": names} if names else {"type": "string", "maxLength": 80}
    listed = {"type": "array", "items": item, "minItems": at_least, "maxItems": LISTED_ANSWERS}
    return {"type": "object", "properties": {ANSWERS_KEY: listed}, "required": [ANSWERS_KEY]}


def list_reply(answers: Sequence[str]) -> str:
    """An answer list as the model writes it (for few-shot demonstrations).

    >>> list_reply(["1987", "1992"])
    '{"answers": ["1987", "1992"]}'
    """
    return json.dumps({ANSWERS_KEY: list(answers)}, ensure_ascii=False)


def list_reask(question: str) -> str:
    """The re-ask of an empty answer list."""
    return (
        f"Your list is empty. The question is: {question}\nReply again in the same JSON form "
        "with the most likely answer from the facts, even if you are unsure."
    )


def generate_listed_answer(
    trace: Trace,
    llm: LLM,
    messages: list[Message],
    choices: Iterable[str],
    answer_reask: bool = True,
    rank: Callable[[str], float] | None = None,
    soft_prompt: SoftPrompt | None = None,
) -> list[str]:
    """The answer call as a JSON list under the `generation` stage: its names are `choices`
    only (any short text when there are none), so the reply is the committed answers and ends
    with them. An empty list gets one re-ask demanding a name (stage `reask`, unless
    `answer_reask` is off). `rank`, the retriever's score of a name, orders the committed answers,
    highest first, the reader's order breaking ties; the reader's own order is returned. A
    `soft_prompt` (GRAG's graph token) goes before both requests. Sets `trace.answer` (the
    names, comma-separated) and `trace.answers`."""
    choices = list(choices)
    extra = {} if soft_prompt is None else {"soft_prompt": soft_prompt}
    with trace.stage(GENERATION):
        listed = _ask_list(trace, GENERATION, llm, messages, answer_list_schema(choices), extra)
        if not listed and answer_reask:
            again = reask_messages(messages, list_reply(listed), list_reask(trace.question))
            schema = answer_list_schema(choices, 1)
            listed = _ask_list(trace, REASK_STAGE, llm, again, schema, extra)
    order = {name: position for position, name in enumerate(listed)}
    answers = sorted(listed, key=lambda n: (-rank(n), order[n])) if rank else list(listed)
    trace.answer, trace.answers = ", ".join(listed) or "(no answer)", answers
    return listed


def _ask_list(
    trace: Trace, stage: str, llm: LLM, messages: list[Message], schema: dict, extra: dict
) -> list[str]:
    """The names of one constrained answer list, in order, each once; none when the reply
    stays invalid (recorded in the trace). `extra` holds further request options."""
    try:
        reply = ask_json(trace, stage, llm, messages, schema, max_tokens=LIST_TOKENS, **extra)
    except LLMOutputError as error:
        trace.warnings.append(f"{stage}: {error}")
        return []
    names = (" ".join(str(name).split()) for name in reply[ANSWERS_KEY])
    return list(dict.fromkeys(name for name in names if name))


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


def baseline_prompts(domain: str, question: str) -> dict[str, list[Message]]:
    """LLM-only's and KAPING's answer prompt (`MethodSpec.prompts`)."""
    return {"kaping, llm-only": answer_messages(question)}
