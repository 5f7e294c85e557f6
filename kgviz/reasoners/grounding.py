"""Grounding: whether what a question names is in the KG at all, said before any answer.

Each mention is checked against the KG: a name the question gives or marks, each entity the
linker found, each run of name-like words (capitalised or with digits) that no KG name covers,
and, for SimGRAG, each named node of its pattern. A mention is grounded when a KG name matches
it exactly or normalised, or is spelt nearly the same (a slip of the keys), or when the
nearest entity vector is within `GROUNDING_DISTANCE` (L2 between unit vectors; calibrated on
data, see `bench/bench_grounding.py`).

A question is grounded when some mention is, and no given name, name-like run or pattern node
is not. A name-like run counts as one name: "Top Gun: Maverick" is not grounded by the KG's
"Top Gun" and "Maverick". The record goes under the trace stage `"grounding"`; an ungrounded
question adds a warning naming the mention and its nearest entity, before any answer is asked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from kgviz.embed.kg_index import KGIndex, Neighbour
from kgviz.reasoners.base import Abstained, ReasonerContext
from kgviz.reasoners.linking import (
    STOP_WORDS,
    TOKEN,
    EntityLinking,
    EntityNames,
    LinkedEntity,
    entity_names,
    link_topic_entities,
    normalise,
)
from kgviz.trace import GROUNDING, Trace

# The largest L2 distance (unit vectors) at which a mention's nearest entity counts as the same
# thing: between the true links' distances and those of names absent from the KG.
GROUNDING_DISTANCE = 0.55
# A name spelt this alike (difflib ratio of the normalised names) among a mention's nearest
# `FUZZY_CANDIDATES` entity vectors is the same name with a slip of the keys.
FUZZY_RATIO = 0.9
FUZZY_CANDIDATES = 20
# Words that may join name-like words into one name ("Lord of the Rings", "Guillermo del Toro").
CONNECTORS = frozenset(
    {"of", "the", "a", "an", "on", "de", "del", "la", "le", "du", "van", "von", "der", "da"}
)
# Mentions whose check can make a question ungrounded (the linker's own guesses cannot).
DECISIVE = frozenset({"given", "name", "pattern"})


@dataclass
class GroundedMention:
    """One mention: its text, the KG entity it was linked to (or the nearest one), how that was
    found (exact, normalised, vector), the L2 distance, whether it is grounded, and where the
    mention came from (given, linker, name, pattern)."""

    mention: str
    entity: str
    how: str
    distance: float
    grounded: bool
    source: str

    def as_json(self) -> dict[str, object]:
        return {
            "mention": self.mention,
            "entity": self.entity,
            "how": self.how,
            "distance": round(self.distance, 4),
            "grounded": self.grounded,
        }


@dataclass
class Grounding:
    """The `"grounding"` record: every mention checked, and the threshold used."""

    mentions: list[GroundedMention] = field(default_factory=list)
    threshold: float = GROUNDING_DISTANCE

    @property
    def grounded(self) -> bool:
        return any(m.grounded for m in self.mentions) and not self.missing

    @property
    def missing(self) -> list[GroundedMention]:
        """The decisive mentions that are not in the KG."""
        return [m for m in self.mentions if not m.grounded and m.source in DECISIVE]

    def warning(self) -> str:
        """`'Zorblax Quintavius' is not in this KG; nearest: Mélanie Laurent, distance 1.14`"""
        if not self.mentions:
            return "the question names nothing this KG holds"
        absent = self.missing or [m for m in self.mentions if not m.grounded]
        return "; ".join(
            f"{m.mention!r} is not in this KG; nearest: {m.entity or 'none'}, "
            f"distance {m.distance:.2f}"
            for m in absent
        )

    def as_json(self) -> dict[str, object]:
        return {"grounded": self.grounded, "entities": [m.as_json() for m in self.mentions]}

    def add(self, mentions: Iterable[GroundedMention]) -> None:
        """Add mentions not checked yet (by mention text)."""
        seen = {m.mention.casefold() for m in self.mentions}
        for mention in mentions:
            if mention.mention.casefold() not in seen:
                seen.add(mention.mention.casefold())
                self.mentions.append(mention)


def _name_like(token: str) -> bool:
    return any(ch.isupper() or ch.isdigit() for ch in token) and (
        token.casefold() not in STOP_WORDS
    )


def name_runs(question: str) -> list[tuple[int, int]]:
    """Token ranges `[start, end)` of runs of name-like words (capitalised or with digits),
    joined by connectors ("of the", "of a") and by capitalised small words ("Drive My Car"),
    with a capitalised article before them ("The Matrix")."""
    tokens = [t.group() for t in TOKEN.finditer(question)]

    def joins(word: str) -> bool:
        return word.casefold() in CONNECTORS or (word[:1].isupper() and word.casefold() != "i")

    runs: list[tuple[int, int]] = []
    i = 0
    while i < len(tokens):
        if not _name_like(tokens[i]):
            i += 1
            continue
        start = i - 1 if i > 0 and tokens[i - 1] in ("The", "A", "An") else i
        end = i + 1
        while end < len(tokens):
            joined = end
            while joined < len(tokens) and not _name_like(tokens[joined]) and joins(tokens[joined]):
                joined += 1
            if joined < len(tokens) and _name_like(tokens[joined]):
                end = joined + 1
                continue
            break
        runs.append((start, end))
        i = end
    return runs


def kg_name_spans(names: EntityNames, question: str, max_ngram: int = 12) -> list[tuple[int, int]]:
    """Token ranges of the question's n-grams that are KG names (exact or normalised) and hold a
    word that is not a stop word."""
    matches = list(TOKEN.finditer(question))
    spans: list[tuple[int, int]] = []
    for start in range(len(matches)):
        for end in range(start + 1, min(len(matches), start + max_ngram) + 1):
            words = [m.group().casefold() for m in matches[start:end]]
            if all(w in STOP_WORDS for w in words):
                continue
            text = question[matches[start].start() : matches[end - 1].end()]
            after = question[matches[end - 1].end() : matches[end - 1].end() + 1]
            if any(names.lookup(t) for t in (text + after, text) if t.strip()):
                spans.append((start, end))
    return spans


def named_runs(names: EntityNames, question: str) -> tuple[list[str], list[str]]:
    """The question's name-like runs as text: those a single KG name covers (that name's text),
    and those none covers ("Top Gun: Maverick" is one name to check even though "Top Gun" and
    "Maverick" are KG names)."""
    matches = list(TOKEN.finditer(question))
    spans = kg_name_spans(names, question)
    covered: list[str] = []
    uncovered: list[str] = []
    for start, end in name_runs(question):
        named = [i for i in range(start, end) if _name_like(matches[i].group())]
        cover = next(((s, e) for s, e in spans if s <= named[0] and named[-1] < e), None)
        if cover is not None:
            covered.append(question[matches[cover[0]].start() : matches[cover[1] - 1].end()])
        else:
            uncovered.append(question[matches[start].start() : matches[end - 1].end()])
    return covered, uncovered


def check_texts(
    index: KGIndex,
    names: EntityNames,
    texts: Sequence[str],
    source: str,
    threshold: float = GROUNDING_DISTANCE,
) -> list[GroundedMention]:
    """Each text looked up by name (exact, normalised), else among its nearest entity vectors:
    a name spelt nearly the same ("fuzzy", a slip of the keys the encoder does not see through),
    else the nearest, grounded within the threshold (one encoder call for all)."""
    found: list[GroundedMention | None] = []
    for text in texts:
        hit = names.lookup(text)
        found.append(
            GroundedMention(text, names.kg.entities[hit[0][0]], hit[1], 0.0, True, source)
            if hit
            else None
        )
    todo = [text for text, mention in zip(texts, found) if mention is None]
    nearest = iter(index.nearest_entities_batch(todo, FUZZY_CANDIDATES) if todo else [])
    checked = []
    for text, mention in zip(texts, found):
        if mention is None:
            mention = _nearest_mention(text, next(nearest), threshold, source)
        checked.append(mention)
    return checked


def _nearest_mention(
    text: str, hits: Sequence[Neighbour], threshold: float, source: str
) -> GroundedMention:
    if not hits:
        return GroundedMention(text, "", "vector", float("inf"), False, source)
    key = normalise(text)
    spelling = [SequenceMatcher(None, key, normalise(hit.name)).ratio() for hit in hits]
    best = max(range(len(hits)), key=spelling.__getitem__)
    if spelling[best] >= FUZZY_RATIO:
        return GroundedMention(text, hits[best].name, "fuzzy", hits[best].distance, True, source)
    first = hits[0]
    return GroundedMention(
        text, first.name, "vector", first.distance, first.distance <= threshold, source
    )


def linked_mention(entity: LinkedEntity, threshold: float = GROUNDING_DISTANCE) -> GroundedMention:
    """A linker's entity as a mention: string matches are grounded; a vector match (its score
    a cosine) is grounded within the threshold."""
    if entity.method != "vector":
        return GroundedMention(entity.span, entity.name, entity.method, 0.0, True, "linker")
    distance = max(0.0, 2.0 - 2.0 * entity.score) ** 0.5
    return GroundedMention(
        entity.span, entity.name, "vector", distance, distance <= threshold, "linker"
    )


def question_grounding(
    index: KGIndex,
    names: EntityNames,
    question: str,
    given: Sequence[str] = (),
    linking: EntityLinking | None = None,
) -> Grounding:
    """The grounding of a question: its given names, the linker's entities, and the name-like
    runs no KG name covers."""
    plain = re.sub(r"[\[\]]", "", question)
    grounding = Grounding()
    grounding.add(check_texts(index, names, list(dict.fromkeys(given)), "given"))
    covered, uncovered = named_runs(names, plain)
    grounding.add(check_texts(index, names, uncovered + covered, "name"))
    if linking is not None:  # what the linker found beyond those (first come, first kept)
        grounding.add(
            linked_mention(entity) for entity in linking.entities if entity.method != "given"
        )
    return grounding


def note_grounding(trace: Trace, grounding: Grounding, on_ungrounded: str) -> None:
    """Record `grounding`; an ungrounded question gets its warning first in the list and, under
    `on_ungrounded="abstain"`, ends the run here (`Abstained`)."""
    trace.record(GROUNDING, grounding)
    if grounding.grounded:
        return
    trace.warnings.insert(0, f"not grounded in this KG: {grounding.warning()}")
    if on_ungrounded == "abstain":
        raise Abstained


def link_and_ground(
    trace: Trace,
    context: ReasonerContext,
    question: str,
    given: Sequence[str],
    on_ungrounded: str,
) -> EntityLinking:
    """`link_topic_entities`, then the `"grounding"` stage over the question and its links."""
    linking = link_topic_entities(trace, context, question, given)
    with trace.stage(GROUNDING):
        grounding = question_grounding(
            context.index, entity_names(context), question, given, linking
        )
        note_grounding(trace, grounding, on_ungrounded)
    return linking
