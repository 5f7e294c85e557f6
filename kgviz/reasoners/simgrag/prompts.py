"""Prompts and reply schemas of SimGRAG's two LLM steps: question -> pattern, evidence -> answer.

Every prompt is a fixed prefix (instructions, then few-shot turns) followed by one final user turn
with the question, so a backend's prompt cache re-uses the prefix across questions.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from typing import Literal

from kgviz.llm.base import Message
from kgviz.reasoners.prompting import list_reply, own_entities_problem
from kgviz.reasoners.simgrag.fewshot import (
    ANSWER_EXAMPLES,
    PATTERN_EXAMPLES,
    VERIFY_EXAMPLES,
    Triple,
)

Task = Literal["qa", "verify"]

NAME_CHARS = 120  # longest name or relation a pattern may write


UNKNOWN_RELATIONS = 3  # "UNKNOWN relation 1" .. 3 stay writable under a relation vocabulary


@cache
def pattern_schema(max_triples: int, relations: tuple[str, ...] = (), phrases: bool = True) -> dict:
    """The pattern reply: phrases (unless `phrases` is off) and [head, relation, tail] triples,
    at most `max_triples` of each and names of at most `NAME_CHARS`, so a reply that loops stops
    at the bound instead of running to the token limit. With `relations` (the KG's, as words), a
    triple's relation is one of them or an "UNKNOWN relation n"."""
    name = {"type": "string", "maxLength": NAME_CHARS}
    triple: dict = {"type": "array", "items": name, "minItems": 3, "maxItems": 3}
    if relations:
        unknown = [f"UNKNOWN relation {n}" for n in range(1, UNKNOWN_RELATIONS + 1)]
        relation = {"type": "string", "enum": [*relations, *unknown]}
        # `prefixItems` without `items`: llama.cpp's (and Ollama's) schema-to-grammar takes an
        # `items` beside it as the rule for every element and drops the tuple.
        triple = {
            "type": "array",
            "prefixItems": [name, relation, name],
            "minItems": 3,
            "maxItems": 3,
        }
    triples = {"type": "array", "minItems": 1, "maxItems": max_triples, "items": triple}
    if not phrases:
        return {"type": "object", "properties": {"triples": triples}, "required": ["triples"]}
    return {
        "type": "object",
        "properties": {
            "phrases": {"type": "array", "items": name, "maxItems": max_triples},
            "triples": triples,
        },
        "required": ["phrases", "triples"],
    }


def is_pattern_schema(schema: dict | None) -> bool:
    """Whether a request's schema is the pattern's (for stand-in LLMs that reply per step)."""
    return schema is not None and "triples" in schema.get("properties", {})


ANSWER_SCHEMA: dict = {
    "type": "object",
    "properties": {
        "reason": {"type": "string"},
        "answer": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["reason", "answer"],
}


def answer_reask(
    question: str, listed: Sequence[str], asked: Sequence[str], others: Sequence[str]
) -> str:
    """The one re-ask of an answer whose list names no entity of the subgraphs but those the
    question names (`asked`), restating the question (a small model otherwise drifts back to the
    examples' questions), what was wrong with `listed`, and the subgraphs' `others` entities."""
    if not listed:
        problem = "Your answer list is empty."
    elif asked:
        problem = own_entities_problem("Your answer lists", asked)
    else:
        problem = "Your answer list names no entity from the subgraphs."
    candidates = f" The subgraphs also name: {', '.join(others)}." if others else ""
    return (
        f"{problem}{candidates} The question is: {question}\nAnswer again in the same JSON form, "
        "putting in `answer` the entity names from the subgraphs that answer this question, "
        "spelled exactly as there. If you are unsure, give the most likely one."
    )


def pattern_reask(problems: list[str], question: str | None = None, phrases: bool = True) -> str:
    """The re-ask of a malformed pattern, quoting what is wrong with it, and restating the
    `question` when given (a small model otherwise drifts back to the examples' questions)."""
    listed = "\n".join(f"- {problem}" for problem in problems)
    restated = f"The question is: {question}\n" if question is not None else ""
    per_phrase = "one triple per phrase, " if phrases else ""
    return (
        f"Your pattern has problems:\n{listed}\n{restated}Write it again in the same JSON form: "
        f"{per_phrase}each triple linking two different nodes, no triple twice."
    )


VERIFY_SCHEMA: dict = {
    "type": "object",
    "properties": {
        "reason": {"type": "string"},
        "verdict": {"type": "string", "enum": ["True", "False"]},
    },
    "required": ["reason", "verdict"],
}

_INTRO = "You turn a question into a small graph of facts that a knowledge graph could hold.\n"
_STEPS = {  # with phrases (the paper's two steps), or without (the triples alone, fewer tokens)
    True: "Steps:\n"
    "1. Split the question into short phrases, one fact per phrase, keeping the question's own "
    "words.\n"
    "2. Write one [head, relation, tail] triple per fact.\n",
    False: "Write one [head, relation, tail] triple per fact the question states or asks.\n",
}
_RULES = """\
Rules:
- Copy entity names exactly as the question writes them (spelling, underscores, capitals).
- An entity the question does not name is "UNKNOWN <type> <n>", e.g. "UNKNOWN person 1"; reuse the
  same placeholder wherever the same thing appears, so the triples connect into one graph, and
  give a different thing of the same type the next number ("UNKNOWN person 2").
- An unnamed relation is "UNKNOWN relation <n>".
- Relations are short verb or noun phrases; never a bare preposition such as "in" or "of".
- Use as few triples as the question needs.
"""
_TRIPLES = '"triples": [["head", "relation", "tail"], ...]}'
_FORMAT = {
    True: 'Reply with JSON only: {"phrases": [...], ' + _TRIPLES,
    False: "Reply with JSON only: {" + _TRIPLES,
}


def pattern_instructions(phrases: bool = True) -> str:
    """The pattern prompt's instructions, with the phrases step or without it."""
    return _INTRO + _STEPS[phrases] + _RULES + _FORMAT[phrases]


FAMILY_HINTS = {
    "movies": "The graph is about films. Its relations read: directed by, written by, starred "
    "actors, release year, in language, has genre, has tags; a film is always the head.",
    "paths": "The graph is about people and their families. Relations include spouse, parents, "
    "children, gender, nationality, religion, profession, place of birth, place of death.",
    "football": "The graph is about World Cup footballers. Relations include plays in club, plays "
    "for country, plays position, is aged, wears number; clubs are in a country.",
    "generic": "",
}

ANSWER_INSTRUCTIONS = """\
You answer a question from facts found in a knowledge graph.
The facts come as numbered graphs of (head, relation, tail) triples: the graphs whose shape and
wording best match the question, best first. Some may not fit the question.
Rules:
- Use only graphs that fit the question; different graphs may give different answers, list them all.
- Copy answer names exactly as the triples write them; never list an entity the question names.
"""
# kgviz's addition (not in the paper): `own_knowledge` keeps it
OWN_KNOWLEDGE_RULE = (
    "- If no graph fits, answer from your own knowledge and say so in the reason.\n"
)
ANSWER_FORMAT = 'Reply with JSON only: {"reason": "<one short sentence>", "answer": ["name", ...]}'

VERIFY_INSTRUCTIONS = """\
You check a claim against facts found in a knowledge graph.
The facts come as numbered graphs of (head, relation, tail) triples, best match first.
The claim is "True" only if some graph fully supports it, otherwise "False".
Reply with JSON only: {"reason": "<one short sentence>", "verdict": "True" or "False"}"""


def family_of(domain: str) -> str:
    """SimGRAG's few-shot family for a dataset's domain (`Dataset.domain`): the examples written
    for it, or the generic ones."""
    return domain if domain in PATTERN_EXAMPLES else "generic"


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


@cache
def _pattern_prefix(family: str, relation_hint: bool, phrases: bool) -> tuple[Message, ...]:
    hint = FAMILY_HINTS[family] if relation_hint else ""
    system = pattern_instructions(phrases) + (f"\n{hint}" if hint else "")
    turns: list[Message] = [{"role": "system", "content": system}]
    for question, segments, triples in PATTERN_EXAMPLES[family]:
        turns.append({"role": "user", "content": f"question: {question}"})
        reply: dict[str, object] = {"phrases": segments} if phrases else {}
        reply["triples"] = [list(t) for t in triples]
        turns.append({"role": "assistant", "content": _dumps(reply)})
    return tuple(turns)


def pattern_messages(
    domain: str, question: str, relation_hint: bool = True, phrases: bool = True
) -> list[Message]:
    """The question-to-pattern prompt for a dataset's domain; `relation_hint` adds the family's
    relation vocabulary to the instructions (an addition to the paper, which leaves it to
    future work); without `phrases`, the reply is the triples alone."""
    return [
        *map(dict, _pattern_prefix(family_of(domain), relation_hint, phrases)),
        {"role": "user", "content": f"question: {question}"},
    ]


def verbalize(graphs: Sequence[Sequence[Triple]]) -> str:
    """Numbered graphs, one `(head, relation, tail)` line per triple; a note when there are none."""
    if not graphs:
        return "graphs: none found"
    blocks = [
        f"graph {number}:\n" + "\n".join(f"  ({h}, {r}, {t})" for h, r, t in triples)
        for number, triples in enumerate(graphs, 1)
    ]
    return "\n".join(blocks)


def _evidence_turn(label: str, text: str, graphs: Sequence[Sequence[Triple]]) -> Message:
    return {"role": "user", "content": f"{label}: {text}\n{verbalize(graphs)}"}


def answer_instructions(own_knowledge: bool) -> str:
    """The answer prompt's instructions, with or without kgviz's own-knowledge rule."""
    return ANSWER_INSTRUCTIONS + (OWN_KNOWLEDGE_RULE if own_knowledge else "") + ANSWER_FORMAT


LIST_ANSWER_FORMAT = (
    'Reply with JSON only, {"answers": ["name", ...]}: the most likely answer first; '
    "if no graph fits, answer from your own knowledge."
)


@cache
def _listed_answer_prefix() -> tuple[Message, ...]:
    turns: list[Message] = [{"role": "system", "content": ANSWER_INSTRUCTIONS + LIST_ANSWER_FORMAT}]
    for question, graphs, _, answers in ANSWER_EXAMPLES:
        turns.append(_evidence_turn("question", question, graphs))
        turns.append({"role": "assistant", "content": list_reply(answers)})
    return tuple(turns)


@cache
def _answer_prefix(task: Task, own_knowledge: bool) -> tuple[Message, ...]:
    if task == "verify":
        turns: list[Message] = [{"role": "system", "content": VERIFY_INSTRUCTIONS}]
        for claim, graphs, reason, verdict in VERIFY_EXAMPLES:
            turns.append(_evidence_turn("claim", claim, graphs))
            reply = {"reason": reason, "verdict": verdict}
            turns.append({"role": "assistant", "content": _dumps(reply)})
        return tuple(turns)
    turns = [{"role": "system", "content": answer_instructions(own_knowledge)}]
    for question, graphs, reason, answers in ANSWER_EXAMPLES:
        turns.append(_evidence_turn("question", question, graphs))
        answer_reply = {"reason": reason, "answer": answers}
        turns.append({"role": "assistant", "content": _dumps(answer_reply)})
    return tuple(turns)


def answer_messages(
    task: Task,
    question: str,
    graphs: Sequence[Sequence[Triple]],
    own_knowledge: bool = True,
    listed: bool = False,
) -> list[Message]:
    """The verbalized-subgraph answer prompt (`qa`) or its True/False variant (`verify`);
    `own_knowledge` keeps kgviz's rule to answer from the LLM's own knowledge when no graph
    fits (not in the paper); `listed` asks for the JSON answer list alone (qa; the list is
    constrained to the graphs' names, so its own-knowledge rule applies when none was found)."""
    label = "claim" if task == "verify" else "question"
    prefix = _listed_answer_prefix() if listed else _answer_prefix(task, own_knowledge)
    return [*map(dict, prefix), _evidence_turn(label, question, graphs)]


def answer_schema(task: Task) -> dict:
    return VERIFY_SCHEMA if task == "verify" else ANSWER_SCHEMA


def method_prompts(domain: str, question: str) -> dict[str, list[Message]]:
    """SimGRAG's two prompts as the tuned preset sends them (`MethodSpec.prompts`)."""
    return {
        "simgrag pattern": pattern_messages(domain, question),
        "simgrag answer": answer_messages("qa", question, [], listed=True),
    }
