"""Topic-entity linking: given names, then exact and normalised n-gram matches, then vectors.

`link_topic_entities(trace, context, question, given)` runs the cascade and records an
`EntityLinking` under the trace stage `"linking"`:

1. **given**: names from the caller or the dataset, plus `[Name]` marks in the question;
2. **exact** / **normalised**: question n-grams that are KG entity names, longest first, each tried
   case-sensitively before its normalised form (case-folded, accents and punctuation dropped);
   n-grams of stop words only or shorter than `min_chars` are skipped;
3. **vector**: the nearest index entity to the question or to a span of content words, kept when
   its distance is at most `max_distance` (a last resort: the encoder is weak on misspellings).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from kgviz.datasets.base import split_topic_marks
from kgviz.kg.graph import KnowledgeGraph
from kgviz.kg.normalise import normalise
from kgviz.reasoners.base import ReasonerContext
from kgviz.trace import LINKING, Trace

STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "from",
        "by",
        "with",
        "without",
        "about",
        "as",
        "into",
        "onto",
        "than",
        "then",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "do",
        "does",
        "did",
        "done",
        "has",
        "have",
        "had",
        "having",
        "can",
        "could",
        "will",
        "would",
        "shall",
        "should",
        "may",
        "might",
        "must",
        "not",
        "no",
        "yes",
        "so",
        "if",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "whatever",
        "whichever",
        "i",
        "me",
        "my",
        "we",
        "our",
        "you",
        "your",
        "he",
        "him",
        "his",
        "she",
        "her",
        "it",
        "its",
        "they",
        "them",
        "their",
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "all",
        "any",
        "some",
        "each",
        "every",
        "other",
        "same",
        "also",
        "both",
        "either",
        "neither",
        "more",
        "most",
        "many",
        "much",
        "few",
        "up",
        "down",
        "out",
        "over",
        "under",
        "again",
        "further",
        "only",
        "own",
        "just",
        "very",
        "too",
    ]
)
TOKEN = re.compile(r"\w+")
CACHE_KEY = "_entity_names"


class EntityNames:
    """Exact and normalised lookups of a KG's entity names."""

    def __init__(self, kg: KnowledgeGraph) -> None:
        self.kg = kg

    def exact(self, text: str) -> int | None:
        return self.kg.entities.get(text)

    def lookup(self, text: str) -> tuple[list[int], str] | None:
        """Ids named `text` and how: `([id], "exact")`, `(ids, "normalised")` or None."""
        found = self.exact(text)
        if found is not None:
            return [found], "exact"
        ids = self.kg.entities_normalised(normalise(text))
        return (ids, "normalised") if ids else None

    def canonical(self, text: str) -> str | None:
        """The KG name `text` stands for (exact, else the first normalised match), or None."""
        hit = self.lookup(text)
        return self.kg.entities[hit[0][0]] if hit else None


def entity_names(context: ReasonerContext) -> EntityNames:
    """The name tables of the context's KG, built on first use and kept on the context."""
    return context.memo(CACHE_KEY, lambda: EntityNames(context.kg))


@dataclass
class LinkedEntity:
    """One topic entity: its id and name, the question text it came from, and a match score.

    `score` is 1.0 for given and string matches and the cosine similarity for vector matches.
    """

    id: int
    name: str
    span: str
    method: str
    score: float = 1.0


@dataclass
class EntityLinking:
    """The `"linking"` record: the question without `[...]` marks and its topic entities."""

    question: str
    method: str  # how the first entity was found: given | exact | normalised | vector | none
    entities: list[LinkedEntity] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)  # given names that are not in the KG

    @property
    def ids(self) -> list[int]:
        return [entity.id for entity in self.entities]

    @property
    def names(self) -> list[str]:
        return [entity.name for entity in self.entities]


@dataclass(frozen=True)
class LinkerConfig:
    """At most `max_entities` topic entities; n-grams of up to `max_ngram` tokens."""

    max_entities: int = 3
    max_ngram: int = 12
    min_chars: int = 2
    max_distance: float = 0.8  # L2 between unit vectors: cosine >= 1 - 0.8**2 / 2 = 0.68


@dataclass(frozen=True)
class _Span:
    """Tokens `start:end` of the question, and their text (from the first to the last token)."""

    start: int
    end: int
    text: str
    after: str  # the character following the text, if any


def _spans(question: str, max_ngram: int, content_only: bool) -> list[_Span]:
    """Token n-grams; never of stop words only and, with `content_only`, with none at all."""
    tokens = list(TOKEN.finditer(question))
    stop = [t.group().casefold() in STOP_WORDS for t in tokens]
    spans = []
    for start in range(len(tokens)):
        for end in range(start + 1, min(len(tokens), start + max_ngram) + 1):
            if all(stop[start:end]) or (content_only and any(stop[start:end])):
                continue
            first, last = tokens[start].start(), tokens[end - 1].end()
            spans.append(_Span(start, end, question[first:last], question[last : last + 1]))
    return spans


Ranked = list[tuple[_Span, list[LinkedEntity]]]


def _take_disjoint(ranked: Ranked, limit: int) -> list[LinkedEntity]:
    """Entities of the ranked spans, skipping spans that overlap a taken one, and repeats."""
    used: set[int] = set()
    taken: dict[int, LinkedEntity] = {}
    for span, entities in ranked:
        tokens = set(range(span.start, span.end))
        if tokens & used:
            continue
        used |= tokens
        for entity in entities:
            taken.setdefault(entity.id, entity)
    return list(taken.values())[:limit]


def _looks_like_name(text: str) -> bool:
    return any(ch.isupper() or ch.isdigit() for ch in text)


def name_matches(names: EntityNames, question: str, config: LinkerConfig) -> list[LinkedEntity]:
    """Longest n-grams first; at equal length exact before normalised, then name-like spans
    (with a capital or a digit) before common words.

    Matches weaker than the first (normalised after exact, common word after name-like) are
    dropped: in MetaQA, words such as `actors` or `director` are tag entities too.
    """
    found: list[tuple[tuple[bool, bool], _Span, list[LinkedEntity]]] = []
    for span in _spans(question, config.max_ngram, content_only=False):
        if len(normalise(span.text)) < config.min_chars:
            continue
        # a name may end in punctuation the tokens leave out ("Them!", "Monsters, Inc.")
        texts = [span.text + span.after] if span.after.strip() else []
        hit = next(filter(None, map(names.lookup, [*texts, span.text])), None)
        if hit is not None:
            ids, method = hit
            strength = (method == "exact", _looks_like_name(span.text))
            entities = [LinkedEntity(i, names.kg.entities[i], span.text, method) for i in ids]
            found.append((strength, span, entities))
    found.sort(
        key=lambda f: (
            f[1].start - f[1].end,
            (not f[0][0], not f[0][1]),
            -len(f[1].text),
            f[1].start,
        )
    )
    strongest = found[0][0] if found else ()
    kept = [
        (span, entities)
        for strength, span, entities in found
        if all(s >= top for s, top in zip(strength, strongest))
    ]
    return _take_disjoint(kept, config.max_entities)


def _vector_matches(
    context: ReasonerContext, question: str, config: LinkerConfig
) -> list[LinkedEntity]:
    """Nearest entities to the question and to its content-word spans, closest first.

    Single lowercase words are left out: their nearest entity is mostly a tag of that word.
    """
    whole = _Span(0, len(TOKEN.findall(question)), question, "")
    spans = [
        whole,
        *(
            span
            for span in _spans(question, config.max_ngram, content_only=True)
            if span.end - span.start > 1 or _looks_like_name(span.text)
        ),
    ]
    index = context.index
    distances, rows = index.entity_index.search(index.embed([s.text for s in spans]), 1)
    near = (rows[:, 0] >= 0) & (distances[:, 0] <= config.max_distance)
    ids = context.kg.entities_at(rows[near, 0])  # an index row is a stored entity
    kept = [span for span, close in zip(spans, near, strict=True) if close]
    hits = [
        (float(d), span, int(i))
        for span, d, i in zip(kept, distances[near, 0], ids.tolist(), strict=True)
    ]
    hits.sort(key=lambda h: (h[0], h[1].start - h[1].end))
    ranked = [
        (
            span,
            [
                LinkedEntity(
                    i, context.kg.entities[i], span.text, "vector", round(1.0 - d * d / 2.0, 4)
                )
            ],
        )
        for d, span, i in hits
    ]
    return _take_disjoint(ranked, config.max_entities)


def _given(names: EntityNames, given: Sequence[str]) -> tuple[list[LinkedEntity], list[str]]:
    entities: dict[int, LinkedEntity] = {}
    unresolved: list[str] = []
    for name in dict.fromkeys(given):
        hit = names.lookup(name)
        if hit is None:
            unresolved.append(name)
        else:
            entity_id = hit[0][0]
            entities.setdefault(
                entity_id, LinkedEntity(entity_id, names.kg.entities[entity_id], name, "given")
            )
    return list(entities.values()), unresolved


def link_entities(
    context: ReasonerContext,
    question: str,
    given: Sequence[str] = (),
    config: LinkerConfig = LinkerConfig(),
) -> EntityLinking:
    """Topic entities of `question` by the cascade in the module docstring."""
    unmarked, marked = split_topic_marks(question)
    plain = " ".join(unmarked.split())
    names = entity_names(context)
    entities, unresolved = _given(names, [*given, *marked])
    if not entities:
        entities = name_matches(names, plain, config) or _vector_matches(context, plain, config)
    return EntityLinking(plain, entities[0].method if entities else "none", entities, unresolved)


def link_topic_entities(
    trace: Trace,
    context: ReasonerContext,
    question: str,
    given: Sequence[str] = (),
    config: LinkerConfig = LinkerConfig(),
) -> EntityLinking:
    """`link_entities` recorded under `"linking"`; unknown or missing entities add warnings."""
    linking = link_entities(context, question, given, config)
    trace.record(LINKING, linking)
    if linking.unresolved:
        trace.warnings.append(f"topic entities not in the KG: {', '.join(linking.unresolved)}")
    if not linking.entities:
        trace.warnings.append("no topic entity found in the question")
    return linking
