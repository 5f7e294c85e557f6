"""The LLM's pattern graph: parsed from its JSON reply, checked and repaired, split into components.

The reply holds `phrases` (the question segmented, one phrase per fact) and `triples` of
`[head, relation, tail]` texts; `UNKNOWN <type> <n>` stands for an entity or relation the question
does not name. Every text is plain data: it is never interpreted, only trimmed and length-capped.

Disconnected patterns: each connected component is searched on its own, and a subgraph joins one
match of each searched component (`joint.py`). A component is searched only if it names at least
one entity, since a component of UNKNOWN nodes alone matches arbitrary KG edges and would only add
noise; when no component names an entity, the largest one is still searched so the run shows what
happened.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kgviz.kg.normalise import normalise
from kgviz.llm.errors import LLMError
from kgviz.reasoners.simgrag.search_input import PatternGraph

MAX_TEXT_CHARS = 200
# `UNKNOWN ...` in capitals, or `unknown <words> <n>` (so a film called "Unknown" stays a name)
_UNKNOWN = re.compile(r"^(?:UNKNOWN\b(?P<caps>.*)|[Uu]nknown\s+(?P<lower>.*\d))$")
_NUMBER = re.compile(r"\s*\d+\s*$")


class PatternError(LLMError):
    """The LLM's reply holds no usable pattern graph."""


@dataclass(frozen=True)
class PatternNode:
    """A pattern node: a named entity, or an UNKNOWN placeholder with its type (`movie`, ...)."""

    text: str
    is_unknown: bool
    type: str = ""


@dataclass(frozen=True)
class PatternEdge:
    """A pattern triple between node indices; its relation may be UNKNOWN."""

    head: int
    tail: int
    relation: str
    is_unknown: bool


@dataclass(frozen=True)
class Component:
    """A connected part of the pattern: its node and edge indices and the search graph over them.

    `graph` numbers the component's nodes `0..len(nodes)-1` in the order of `nodes`.
    """

    nodes: tuple[int, ...]
    edges: tuple[int, ...]
    graph: PatternGraph


@dataclass
class QueryPattern:
    """The pattern graph of one question, with the repairs made to what the LLM wrote."""

    phrases: list[str]
    nodes: list[PatternNode]
    edges: list[PatternEdge]
    repairs: list[str] = field(default_factory=list)
    malformed: list[str] = field(default_factory=list)  # worth a re-ask (see `parse_pattern`)

    def triples(self) -> list[tuple[str, str, str]]:
        return [(self.nodes[e.head].text, e.relation, self.nodes[e.tail].text) for e in self.edges]

    def components(self) -> list[Component]:
        """Connected components, the one with the most named nodes (then edges) first."""
        parent = list(range(len(self.nodes)))

        def root(node: int) -> int:
            while parent[node] != node:
                parent[node] = parent[parent[node]]
                node = parent[node]
            return node

        for edge in self.edges:
            parent[root(edge.head)] = root(edge.tail)
        groups: dict[int, list[int]] = {}
        for index, edge in enumerate(self.edges):
            groups.setdefault(root(edge.head), []).append(index)
        parts = [self._component(edge_ids) for edge_ids in groups.values()]
        return sorted(parts, key=lambda c: (-self.known_count(c), -len(c.edges), c.edges))

    def known_count(self, component: Component) -> int:
        return sum(not self.nodes[n].is_unknown for n in component.nodes)

    def _component(self, edge_ids: list[int]) -> Component:
        nodes = sorted({n for i in edge_ids for n in (self.edges[i].head, self.edges[i].tail)})
        local = {node: position for position, node in enumerate(nodes)}
        pairs = tuple((local[self.edges[i].head], local[self.edges[i].tail]) for i in edge_ids)
        graph = PatternGraph(len(nodes), pairs)
        return Component(tuple(nodes), tuple(edge_ids), graph)

    def searchable(self) -> list[Component]:
        """The components to search (see the module docstring); the choice goes into `repairs`."""
        parts = self.components()
        anchored = [c for c in parts if self.known_count(c) > 0]
        if len(parts) > 1:
            skipped = len(parts) - len(anchored) if anchored else len(parts) - 1
            self._note(
                f"pattern has {len(parts)} disconnected parts: each is searched on its own "
                "and a subgraph joins a match of each"
                + (f"; {skipped} part(s) without a named entity skipped" if skipped else "")
            )
        return anchored or parts[:1]

    def _note(self, message: str) -> None:
        if message not in self.repairs:
            self.repairs.append(message)


def _clean(value: Any) -> str | None:
    """A JSON scalar as text with whitespace runs collapsed; None for anything else or blank."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    return " ".join(str(value).split()) or None


def _unknown(text: str) -> tuple[bool, str]:
    """(is it an UNKNOWN placeholder, its type word(s) without the number)."""
    match = _UNKNOWN.match(text)
    if match is None:
        return False, ""
    return True, _NUMBER.sub("", match.group("caps") or match.group("lower") or "").strip()


def parse_pattern(reply: Any, max_triples: int, restating_loops: bool = False) -> QueryPattern:
    """Parse and repair the LLM's pattern JSON; raise `PatternError` if nothing usable is left.

    Repairs, each recorded: malformed or non-text triples dropped, over-long texts cut, exact
    duplicates and self-loops dropped, triples past `max_triples` dropped (the first ones are kept,
    as the reply lists the question's facts in order). Duplicates, self-loops and fewer triples
    than phrases (a fact of the question left out) also go into `malformed`: the LLM is asked to
    fix those before the repaired pattern is used. With `restating_loops`, a self-loop on an
    UNKNOWN node is not when a kept triple at that node has its relation: it restates that
    fact ("[movie 1, starred in, movie 1]" between "[X, starred in, movie 1]" and "[movie 1,
    written by, person 1]"), so dropping it is the fix, and it counts as its phrase's triple
    (one loop per such triple). A loop whose relation no kept triple there has is a fact on the
    wrong node, and is re-asked.
    """
    if not isinstance(reply, dict) or not isinstance(reply.get("triples"), list):
        raise PatternError("the LLM reply has no list of triples")
    repairs: list[str] = []
    raw_phrases = reply.get("phrases")
    cleaned = map(_clean, raw_phrases) if isinstance(raw_phrases, list) else ()
    phrases = [text[:MAX_TEXT_CHARS] for text in cleaned if text]
    nodes: list[PatternNode] = []
    keys: dict[str, int] = {}
    edges: list[PatternEdge] = []
    seen: set[tuple[int, str, int]] = set()
    problems: dict[int, str] = {}  # triple position -> what a re-ask should fix
    loops: dict[int, tuple[int, str]] = {}  # position -> (node, relation) of a dropped loop

    def node(text: str) -> int:
        key = text.casefold()
        if key not in keys:
            is_unknown, kind = _unknown(text)
            keys[key] = len(nodes)
            nodes.append(PatternNode(text, is_unknown, kind))
        return keys[key]

    for position, raw in enumerate(reply["triples"], 1):
        well_formed = isinstance(raw, list | tuple) and len(raw) == 3
        texts: list[str | None] = [_clean(v) for v in raw] if well_formed else []
        parts = [text for text in texts if text is not None]
        if len(parts) != 3:
            repairs.append(f"triple {position} dropped: not three non-empty texts")
            continue
        if any(len(text) > MAX_TEXT_CHARS for text in parts):
            repairs.append(f"triple {position}: text longer than {MAX_TEXT_CHARS} characters cut")
        head_text, relation, tail_text = (text[:MAX_TEXT_CHARS] for text in parts)
        head, tail = node(head_text), node(tail_text)
        if head == tail:
            repairs.append(f"triple {position} dropped: self-loop on {head_text!r}")
            loops[position] = (head, relation.casefold())
            continue
        key = (head, relation.casefold(), tail)
        if key in seen:
            repairs.append(f"triple {position} dropped: duplicate")
            problems[position] = f"triple {position} repeats an earlier triple"
            continue
        if len(edges) == max_triples:
            repairs.append(f"triple {position} dropped: more than {max_triples} triples")
            continue
        seen.add(key)
        edges.append(PatternEdge(head, tail, relation, _unknown(relation)[0]))
    if not edges:
        raise PatternError(
            "the LLM reply has no usable triple" + (f" ({'; '.join(repairs)})" if repairs else "")
        )
    used = sorted({n for e in edges for n in (e.head, e.tail)})
    restated = _restating(loops, edges, nodes) if restating_loops else set()
    for position, (looped, _) in loops.items():
        if position not in restated:
            problems[position] = f"triple {position} links {nodes[looped].text!r} to itself"
    malformed = [problems[position] for position in sorted(problems)]
    if len(edges) + len(restated) < len(phrases):
        malformed.append(f"there are {len(phrases)} phrases but {len(edges)} usable triple(s)")
    renumber = {old: new for new, old in enumerate(used)}
    edges = [
        PatternEdge(renumber[e.head], renumber[e.tail], e.relation, e.is_unknown) for e in edges
    ]
    return QueryPattern(phrases, [nodes[i] for i in used], edges, repairs, malformed)


def _restating(
    loops: dict[int, tuple[int, str]], edges: list[PatternEdge], nodes: list[PatternNode]
) -> set[int]:
    """The positions of the self-loops that restate a kept triple: on an UNKNOWN node, with
    the relation of a triple at that node (each triple restated by one loop at most)."""
    unrestated = list(edges)
    restated = set()
    for position, (node, relation) in loops.items():
        if not nodes[node].is_unknown:
            continue
        for edge in unrestated:
            if node in (edge.head, edge.tail) and edge.relation.casefold() == relation:
                unrestated.remove(edge)
                restated.add(position)
                break
    return restated


def lost_topics(pattern: QueryPattern, topics: Sequence[str]) -> list[str]:
    """The given topic entities that no named node of the pattern stands for (same name once
    case, accents and punctuation are set aside)."""
    named = {normalise(node.text) for node in pattern.nodes if not node.is_unknown}
    return [topic for topic in topics if normalise(topic) not in named]


STEM_CHARS = 5  # a word matches a question's word when their first five letters agree


def _stems(text: str) -> set[str]:
    return {word[:STEM_CHARS] for word in normalise(text).split()}


def foreign_names(pattern: QueryPattern, question: str) -> list[str]:
    """The named nodes that share no word with the question (first letters compared, so that
    "comedy" matches "comedies"): entities a small model carried over from the prompt's
    examples instead of the question."""
    asked = _stems(question)
    named = [(node.text, _stems(node.text)) for node in pattern.nodes if not node.is_unknown]
    return [text for text, stems in named if stems and not stems & asked]


def merge_unknown_parallels(pattern: QueryPattern) -> QueryPattern:
    """The pattern with, of several triples linking the same two UNKNOWN nodes, only the last
    (a small model restates a fact of the chain before the one asked for: "[movie 1, written
    by, person 1], [movie 1, screenwriter, person 1]", or adds a wrong one: "[movie 1, starred
    actors, person 1], [movie 1, directed by, person 1]"). Named nodes keep every link, as
    "films X both directed and starred in" needs both."""
    last: dict[frozenset[int], int] = {}
    for index, edge in enumerate(pattern.edges):
        if pattern.nodes[edge.head].is_unknown and pattern.nodes[edge.tail].is_unknown:
            last[frozenset((edge.head, edge.tail))] = index
    kept = [
        edge
        for index, edge in enumerate(pattern.edges)
        if last.get(frozenset((edge.head, edge.tail)), index) == index
    ]
    if len(kept) == len(pattern.edges):
        return pattern
    dropped = len(pattern.edges) - len(kept)
    repairs = [
        *pattern.repairs,
        f"{dropped} triple(s) dropped: another triple links the same two UNKNOWN nodes "
        + "(the last one is kept)",
    ]
    return QueryPattern(pattern.phrases, pattern.nodes, kept, repairs, pattern.malformed)


def pattern_problems(
    pattern: QueryPattern, topics: Sequence[str], question: str | None = None
) -> list[str]:
    """What a re-ask should fix: the malformations, each given entity the pattern lost, and
    (given the `question`) each named node the question does not name."""
    foreign = foreign_names(pattern, question) if question is not None else []
    return (
        pattern.malformed
        + [
            f"the question's entity {topic!r} is not a node; use its exact name as a node"
            for topic in lost_topics(pattern, topics)
        ]
        + [
            f"{name!r} is not in the question; name only what the question names"
            for name in foreign
        ]
    )
