"""How replies commit to answers: the extraction rules every method uses, in one place.

- `answer_entities`: the KG names of a list-like reply, in order (LLM-only, KAPING).
- `mentioned_entities`: the candidates a free-text reply names, in order of first mention
  (GNN-RAG, GRAG over their evidence; SimGRAG over the names in its JSON `answer` list).
- `evidence_entities`: the candidates a method's evidence triples offer.
- SubgraphRAG's `ans:` lines: `kgviz.reasoners.subgraphrag.prompt.committed_answers`.
- `listed_names`: every QA method's last resort, once a re-ask committed to nothing either: the
  KG names a list-like reply consists of, the question's own entities included. A reply that
  answers with the topic entity, or with a KG entity outside the evidence, has committed to a
  (wrong) answer; a refusal ("None", "Unknown") has not.
- `stated_items`: LLM-only's own last resort. Without retrieval the model answers from what it
  learned and often names what the KG does not hold ("J.K. Rowling"): the short items of a
  list-like reply, in its own words (KG names where the KG holds them), are then its committed
  answers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Protocol

from kgviz.trace import StringTriple


class NameLookup(Protocol):
    def canonical(self, text: str) -> str | None:
        """The KG name `text` stands for (exact, then normalised match), or None."""


def evidence_entities(evidence: Iterable[StringTriple]) -> list[str]:
    """The entities the evidence triples name, in order of first appearance.

    >>> evidence_entities([("Big", "directed_by", "P. Marshall"), ("Big", "year", "1988")])
    ['Big', 'P. Marshall', '1988']
    """
    return list(dict.fromkeys(name for head, _, tail in evidence for name in (head, tail)))


def mentioned_entities(answer_text: str, candidates: Iterable[str]) -> list[str]:
    """Candidates named in `answer_text` (whole-word, case-insensitive), longest names first.

    A shorter name inside a longer matched one (`Paris` in `Paris, Texas`) does not count twice.
    The names come in the order the text first names them.

    >>> mentioned_entities("It was filmed in paris, texas, not Paris.", ["Paris", "Paris, Texas"])
    ['Paris, Texas', 'Paris']
    >>> mentioned_entities("Big was a hit", ["Bigelow"])
    []
    """
    text = answer_text.casefold()
    taken = [False] * len(text)
    found: list[str] = []
    for name in sorted(set(candidates), key=lambda n: (-len(n), n)):
        needle = name.casefold().strip()
        if not needle:
            continue
        pattern = re.compile(rf"(?<!\w){re.escape(needle)}(?!\w)")
        for match in pattern.finditer(text):
            if not any(taken[match.start() : match.end()]):
                taken[match.start() : match.end()] = [True] * (match.end() - match.start())
                found.append(name)
                break
    order = {name: answer_text.casefold().find(name.casefold()) for name in found}
    return sorted(found, key=lambda name: order[name])


SEPARATORS = re.compile(r"\s*(?:[,;/|]|\band\b|&)\s*", re.IGNORECASE)
BULLET = re.compile(r"^\s*(?:[-*•]\s*|\d{1,2}[.)]\s+)")  # "1. " is a bullet, "1994." a year
EDGE_NOISE = " \t\"'`*.:!?()[]"


def answer_entities(answer_text: str, names: NameLookup) -> list[str]:
    """KG entity names in a list-like reply, in order: each line whole when it is a name, else
    its pieces split at `SEPARATORS` (commas, semicolons, "/", "|", "and", "&"; exact, then
    normalised name match)."""
    found: dict[str, None] = {}
    for line in answer_text.splitlines():
        line = BULLET.sub("", line).strip(EDGE_NOISE)
        whole = names.canonical(line) if line else None
        pieces = [line] if whole else SEPARATORS.split(line)
        for piece in (piece.strip(EDGE_NOISE) for piece in pieces):
            name = names.canonical(piece) if piece else None
            if name is not None:
                found.setdefault(name)
    return list(found)


REFUSALS = frozenset(
    {
        "none",
        "unknown",
        "n/a",
        "na",
        "no answer",
        "no answer found",
        "not found",
        "not available",
        "not mentioned",
        "not provided",
        "not applicable",
    }
)


class RefusalAwareNames:
    """A `NameLookup` that never reads a refusal as a name (MetaQA has a film called Unknown)."""

    def __init__(self, names: NameLookup) -> None:
        self.names = names

    def canonical(self, text: str) -> str | None:
        return None if text.casefold().strip() in REFUSALS else self.names.canonical(text)


class WithEvidenceNames:
    """A `NameLookup` that also knows the evidence's own entity names (all KG names, unless the
    evidence was edited by hand: `kgviz regenerate --add`)."""

    def __init__(self, names: NameLookup, evidence: Iterable[StringTriple]) -> None:
        self.names = names
        self.evidence = {normalise_key(name): name for name in evidence_entities(evidence)}

    def canonical(self, text: str) -> str | None:
        return self.names.canonical(text) or self.evidence.get(normalise_key(text))


def normalise_key(text: str) -> str:
    """How evidence names are matched: case-folded, white space folded.

    >>> normalise_key("  Tom   HANKS")
    'tom hanks'
    """
    return " ".join(text.casefold().split())


def listed_names(reply: str, names: NameLookup) -> list[str]:
    """The KG names a list-like reply consists of, in order, refusals aside (`answer_entities`)."""
    return answer_entities(reply, RefusalAwareNames(names))


ITEM_MAX_WORDS = 8  # a longer piece is a sentence about answers, not an answer
TRAILING_ASIDES = re.compile(r"(?:\s*\([^()]*\))+$")  # "The Dark Knight (2008) (film)"
QUOTED = re.compile(r'["“]([^"”]+)["”]')  # 'Films include "Heat"': the quoted title is the item
ANSWER_PREFIX = re.compile(r"^answers?\s*:\s*", re.IGNORECASE)  # "Answer: Heat"
NOT_AVAILABLE = re.compile(r"\bn/a\b", re.IGNORECASE)  # kept whole: "/" separates items
HEDGE = re.compile(
    r"\b(?:don'?t know|do not know|not sure|unsure|cannot|can'?t|unable|sorry|no (?:such|"
    r"information|answer|data|record)|there (?:is|are) no|none of|not (?:available|provided|"
    r"mentioned|found|listed|known))\b",
    re.IGNORECASE,
)


def stated_items(reply: str) -> list[str]:
    """The items a list-like reply states, in its own words and order: its lines, bullets aside,
    split like `answer_entities`; a piece quoting a name is that name, and trailing
    parenthetical asides are dropped. A line that hedges or refuses ("not sure", "N/A"), or has
    a piece of prose (over `ITEM_MAX_WORDS` words, no quoted name), states no items."""
    found: dict[str, str] = {}
    for line in reply.splitlines():
        line = ANSWER_PREFIX.sub("", BULLET.sub("", line).strip())
        if HEDGE.search(line) or NOT_AVAILABLE.search(line):
            continue
        items: list[str] = []
        for piece in SEPARATORS.split(line):
            quoted = QUOTED.search(piece)
            if not quoted and len(piece.split()) > ITEM_MAX_WORDS:
                items = []
                break
            item = TRAILING_ASIDES.sub("", (quoted.group(1) if quoted else piece).strip())
            item = item.strip(EDGE_NOISE)
            if item and item.casefold() not in REFUSALS:
                items.append(item)
        for item in items:
            found.setdefault(item.casefold(), item)
    return list(found.values())
