"""ToG's prompts, in kgviz's words: choosing relations, scoring entities, judging whether the
paths found are enough, and answering from them. The paper's free-text forms (`paper` preset)
and the tuned JSON form of the decision, constrained to the paths' names.

Every prompt is a fixed prefix (instructions, one worked example) and a final user turn, so a
backend's prompt cache re-uses the prefix across questions and depths.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from kgviz.llm.base import Message
from kgviz.reasoners.prompting import LISTED_ANSWERS
from kgviz.trace import StringTriple

RELATIONS_SYSTEM = (
    "You help walk a knowledge graph towards the answer of a question. Given an entity and the "
    "relations it has, name the {n} relations most likely to lead to the answer, each with a "
    "score between 0 and 1 (the scores sum to 1), one per line as `relation (score)`."
)
RELATIONS_EXAMPLE = (
    (
        "Question: which language are the films directed by Jane Campion in\n"
        "Entity: Jane Campion\n"
        "Relations: directed by; starred actors; written by"
    ),
    "directed by (0.8)\nwritten by (0.2)",
)
ENTITIES_SYSTEM = (
    "You help walk a knowledge graph towards the answer of a question. Score each candidate "
    "entity between 0 and 1 for how likely the answer lies through it (the scores sum to 1). "
    "Reply with one line, `Scores: s1, s2, ...`, in the candidates' order."
)
ENTITIES_EXAMPLE = (
    (
        "Question: who wrote the film that starred Holly Hunter and was directed by Jane Campion\n"
        "Relation: directed by\nCandidates: Bright Star; In the Cut; The Piano"
    ),
    "Scores: 0.1, 0.1, 0.8",
)
ENOUGH_SYSTEM = (
    "You judge whether what was found in a knowledge graph (triples, or paths whose arrows point "
    "from a fact's subject to its object) is enough to answer a question. Reply `{Yes}` or "
    "`{No}` first, then one sentence of reasoning; after {Yes}, give the answer names in braces, "
    "as {name}."
)
ENOUGH_EXAMPLE = (
    (
        "Question: who directed the films that Holly Hunter starred in\n"
        "Found:\n(The Piano, starred actors, Holly Hunter)\n"
        "(The Piano, directed by, Jane Campion)"
    ),
    "{Yes}. Holly Hunter starred in The Piano, which Jane Campion directed: {Jane Campion}.",
)
ENOUGH_LISTED_SYSTEM = (
    "You judge whether paths found in a knowledge graph (arrows point from a fact's subject to "
    "its object) are enough to answer a question: the answer is where a path the question "
    'describes ends. Reply with JSON only, {"enough": true or false, "answers": [names from '
    'the paths that answer it, most likely first], "reason": "<a few words>"}.'
)
_HOLLY = "Question: who directed the films that Holly Hunter starred in\nFound:\n"
ENOUGH_LISTED_EXAMPLES = (  # one path a hop short of the answer, then the same path whole
    (
        _HOLLY + "Holly Hunter ← starred_actors ← The Piano\n"
        "Holly Hunter ← starred_actors ← Broadcast News",
        json.dumps(
            {
                "enough": False,
                "answers": [],
                "reason": "the paths end at her films; the question asks who directed them",
            }
        ),
    ),
    (
        _HOLLY + "Holly Hunter ← starred_actors ← The Piano → directed_by → Jane Campion\n"
        "Holly Hunter ← starred_actors ← Broadcast News → directed_by → James L. Brooks",
        json.dumps(
            {
                "enough": True,
                "answers": ["Jane Campion", "James L. Brooks"],
                "reason": "the paths end at the directors of her films",
            }
        ),
    ),
)
ANSWER_SYSTEM = (
    "You answer a question from what was found in a knowledge graph (triples) and what you "
    "know. Reply with one sentence of reasoning, then the answer names in braces, as {name}."
)
ANSWER_EXAMPLE = (
    (
        "Question: which language are the films directed by Jane Campion in\n"
        "Found:\n(The Piano, directed by, Jane Campion)\n(The Piano, in language, English)"
    ),
    "Jane Campion directed The Piano, which is in English: {English}.",
)
ANSWER_LISTED_SYSTEM = (
    "You answer a question from paths found in a knowledge graph (arrows point from a fact's "
    "subject to its object); with none, from what you know. The answer is where a path the "
    'question describes ends. Reply with JSON only, {"answers": ["name", ...]}, the most '
    "likely first."
)
RELATION_LINE = re.compile(
    r"^[\s\-*\d.)]*(?P<relation>.+?)\s*\(\s*(?:score:?\s*)?(?P<score>\d*\.?\d+)\s*\)",
    re.IGNORECASE | re.MULTILINE,
)
NUMBER = re.compile(r"\d*\.?\d+")
BRACED = re.compile(r"\{([^{}]+)\}")


def _exchange(system: str, example: tuple[str, str], user: str) -> list[Message]:
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": example[0]},
        {"role": "assistant", "content": example[1]},
        {"role": "user", "content": user},
    ]


def triples_lines(triples: Sequence[StringTriple]) -> list[str]:
    return [f"({h}, {r}, {t})" for h, r, t in triples]


def chain_line(start: str, triples: Sequence[StringTriple]) -> str:
    """A path from `start` as one line: `A → relation → B ← relation ← C` (an arrow points from
    a triple's head to its tail).

    >>> chain_line("Titanic", [("Titanic", "directed_by", "James Cameron"),
    ...                        ("Avatar", "directed_by", "James Cameron")])
    'Titanic → directed_by → James Cameron ← directed_by ← Avatar'
    """
    parts, at = [start], start
    for head, relation, tail in triples:
        forward = head == at
        at = tail if forward else head
        parts += [f"→ {relation} →" if forward else f"← {relation} ←", at]
    return " ".join(parts)


def relation_messages(
    question: str, entity: str, relations: Sequence[str], n: int
) -> list[Message]:
    user = f"Question: {question}\nEntity: {entity}\nRelations: {'; '.join(relations)}"
    return _exchange(RELATIONS_SYSTEM.format(n=n), RELATIONS_EXAMPLE, user)


def entity_messages(question: str, relation: str, candidates: Sequence[str]) -> list[Message]:
    user = f"Question: {question}\nRelation: {relation}\nCandidates: {'; '.join(candidates)}"
    return _exchange(ENTITIES_SYSTEM, ENTITIES_EXAMPLE, user)


def enough_messages(question: str, lines: Sequence[str], listed: bool) -> list[Message]:
    """The "enough?" prompt over the paths found, written as `lines` (triples or chains); the
    listed one shows a path a hop short of its answer judged not enough, then the whole one."""
    user = f"Question: {question}\nFound:\n{chr(10).join(lines) or '(nothing)'}"
    if listed:
        turns: list[Message] = [{"role": "system", "content": ENOUGH_LISTED_SYSTEM}]
        for asked, replied in ENOUGH_LISTED_EXAMPLES:
            turns += [{"role": "user", "content": asked}, {"role": "assistant", "content": replied}]
        return [*turns, {"role": "user", "content": user}]
    return _exchange(ENOUGH_SYSTEM, ENOUGH_EXAMPLE, user)


def answer_messages(question: str, lines: Sequence[str], listed: bool) -> list[Message]:
    """The answer prompt over the paths found, written as `lines` (triples or chains)."""
    user = f"Question: {question}\nFound:\n{chr(10).join(lines) or '(nothing)'}"
    if listed:
        return [
            {"role": "system", "content": ANSWER_LISTED_SYSTEM},
            {"role": "user", "content": user},
        ]
    return _exchange(ANSWER_SYSTEM, ANSWER_EXAMPLE, user)


def enough_schema(choices: Sequence[str]) -> dict:
    """The tuned decision: enough or not, the answers (names of the paths, when any), a reason."""
    names = sorted(set(choices))
    item = {"type": "string", "enum": names} if names else {"type": "string", "maxLength": 80}
    return {
        "type": "object",
        "properties": {
            "enough": {"type": "boolean"},
            "answers": {"type": "array", "items": item, "maxItems": LISTED_ANSWERS},
            "reason": {"type": "string", "maxLength": 160},
        },
        "required": ["enough", "answers", "reason"],
    }


def read_relations(reply: str, listed: Sequence[str], n: int) -> list[tuple[str, float]]:
    """The listed relations a reply keeps, with their scores, best first (at most `n`; a
    relation the reply names that was not listed is not taken).

    >>> listed = ["directed by", "has genre"]
    >>> read_relations("1. directed by (0.7)\\n2. has genre (Score: 0.3)", listed, 3)
    [('directed by', 0.7), ('has genre', 0.3)]
    """
    known = {name.casefold(): name for name in listed}
    found: dict[str, float] = {}
    for match in RELATION_LINE.finditer(reply):
        name = known.get(match["relation"].strip(" `'\"{}").casefold())
        if name is not None and name not in found:
            found[name] = float(match["score"])
    return sorted(found.items(), key=lambda pair: -pair[1])[:n]


def read_scores(reply: str, count: int) -> list[float] | None:
    """The `count` scores of a `Scores: ...` reply, or None when it gives another number of them.

    >>> read_scores("Scores: 0.1, 0.9", 2)
    [0.1, 0.9]
    """
    line = reply.split("Scores:", 1)[-1].splitlines()[0] if reply.strip() else ""
    numbers = [float(n) for n in NUMBER.findall(line)]
    return numbers if len(numbers) == count else None


def read_decision(reply: str) -> bool:
    """Whether a free-text decision said yes (its first braced word)."""
    first = BRACED.search(reply)
    return first is not None and first.group(1).strip().casefold() == "yes"


def braced_names(reply: str) -> list[str]:
    """The braced names of a free-text reply, but the decision's yes or no.

    >>> braced_names("{Yes}. It is {Jane Campion}.")
    ['Jane Campion']
    """
    names = (name.strip() for name in BRACED.findall(reply))
    return [name for name in names if name and name.casefold() not in ("yes", "no")]


def method_prompts(domain: str, question: str) -> dict[str, list[Message]]:
    """ToG's prompts as its presets send them (`MethodSpec.prompts`)."""
    return {
        "tog enough": enough_messages(question, [], listed=True),
        "tog relations": relation_messages(question, "?", [], 3),
        "tog entities": entity_messages(question, "?", []),
        "tog enough (paper)": enough_messages(question, [], listed=False),
    }
