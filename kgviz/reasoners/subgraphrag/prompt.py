"""The reasoning prompt: the top-K triples, one worked demonstration, and a request for an
explanation grounded in the triples followed by `ans:` lines (the paper's), or for the JSON list of
the answers alone (`listed`, the tuned preset's)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from kgviz.embed.kg_index import relation_text
from kgviz.llm.base import Message
from kgviz.reasoners.answers import evidence_entities, mentioned_entities
from kgviz.reasoners.prompting import LIST_FORMAT, list_reply, own_entities_problem
from kgviz.trace import StringTriple

SYSTEM_PROMPT = (
    "You answer questions from knowledge-graph facts written as (head, relation, tail) triples. "
    "Use only the triples given. First explain, step by step, which triples lead to the answer. "
    "Then put every answer on its own line as `ans: <name>`, spelling each name exactly as in "
    "the triples. If the triples do not contain the answer, write `ans: not available`."
)

LIST_SYSTEM_PROMPT = (
    "You answer questions from knowledge-graph facts written as (head, relation, tail) triples. "
    f"Use only the triples given. {LIST_FORMAT}"
)

DEMO_TRIPLES: tuple[StringTriple, ...] = (
    ("Northern Lights Suite", "composed_by", "Ilse Varga"),
    ("Northern Lights Suite", "premiere_year", "1987"),
    ("Harbour Songs", "composed_by", "Ilse Varga"),
    ("Harbour Songs", "premiere_year", "1992"),
    ("Ilse Varga", "born_in", "Szeged"),
    ("Winter Psalms", "composed_by", "Tomas Ek"),
)
DEMO_QUESTION = "when were the works by the composer of Northern Lights Suite first performed"
DEMO_ANSWER = (
    "The composer of Northern Lights Suite is Ilse Varga (Northern Lights Suite, composed by, "
    "Ilse Varga). Ilse Varga also composed Harbour Songs (Harbour Songs, composed by, Ilse Varga). "
    "Northern Lights Suite premiered in 1987 and Harbour Songs in 1992.\n"
    "ans: 1987\n"
    "ans: 1992"
)
# One line each: an empty `ans:` never takes the next line's prose as its answer.
ANSWER_LINE = re.compile(
    r"^[^\w\n]*ans[^\S\n]*:[^\S\n]*(.+?)[^\S\n]*$", re.IGNORECASE | re.MULTILINE
)


def triple_line(triple: StringTriple) -> str:
    head, relation, tail = triple
    return f"({head}, {relation_text(relation)}, {tail})"


def user_turn(triples: Sequence[StringTriple], question: str) -> str:
    lines = "\n".join(triple_line(t) for t in triples) or "(no triples)"
    return f"Triples:\n{lines}\n\nQuestion: {question}"


DEMO_LIST = ("1987", "1992")


def reasoning_messages(
    question: str, triples: Sequence[StringTriple], listed: bool = False
) -> list[Message]:
    """System prompt, the demonstration as a user/assistant exchange, then the question;
    `listed` asks for the JSON answer list instead of the explanation and `ans:` lines."""
    system, demo = (
        (LIST_SYSTEM_PROMPT, list_reply(DEMO_LIST)) if listed else (SYSTEM_PROMPT, DEMO_ANSWER)
    )
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": user_turn(DEMO_TRIPLES, DEMO_QUESTION)},
        {"role": "assistant", "content": demo},
        {"role": "user", "content": user_turn(triples, question)},
    ]


def committed_answers(
    reply: str, evidence: Sequence[StringTriple], topics: Sequence[str] = ()
) -> list[str]:
    """SubgraphRAG's answer extraction: the evidence entities (topic entities aside) that the
    reply's `ans:` lines name, in line order; prose outside `ans:` lines commits to nothing."""
    _, lines = split_reply(reply)
    names = set(evidence_entities(evidence)) - set(topics)
    return list(dict.fromkeys(name for line in lines for name in mentioned_entities(line, names)))


def ans_reask(
    question: str, reply: str, evidence: Sequence[StringTriple], topics: Sequence[str]
) -> str:
    """The one re-ask of a reply whose `ans:` lines commit to nothing: what was wrong with them
    (none, "not available", only the question's own entities, or no name from the triples),
    then the question restated (a small reader otherwise answers with the entities met on the
    way)."""
    _, lines = split_reply(reply)
    names = set(evidence_entities(evidence))
    asked = [name for line in lines for name in mentioned_entities(line, names) if name in topics]
    if not ANSWER_LINE.search(reply):
        problem = "Your reply has no `ans:` line."
    elif not lines:
        problem = "Your `ans:` lines give no answer."
    elif asked:
        problem = own_entities_problem("Your `ans:` lines name", asked)
    else:
        problem = "Your `ans:` lines name nothing from the triples."
    return (
        f"{problem} The question is: {question}\nReply again with only the answer lines, one "
        "`ans: <name>` line per entity from the triples that answers this question, spelled "
        "exactly as there. If you are unsure, give the most likely answer."
    )


def split_reply(reply: str) -> tuple[str, list[str]]:
    r"""The explanation (text before the first `ans:` line) and the answer names, in order.

    >>> split_reply("Ilse Varga composed it.\nans: 1987\nans: not available")
    ('Ilse Varga composed it.', ['1987'])
    """
    first = ANSWER_LINE.search(reply)
    explanation = reply[: first.start()].strip() if first else reply.strip()
    answers = [a.strip(" `*\"'.") for a in ANSWER_LINE.findall(reply)]
    return explanation, [a for a in dict.fromkeys(answers) if a and a.casefold() != "not available"]


def method_prompts(domain: str, question: str) -> dict[str, list[Message]]:
    """SubgraphRAG's prompt as the tuned preset sends it (`MethodSpec.prompts`)."""
    return {"subgraphrag": reasoning_messages(question, [], listed=True)}
