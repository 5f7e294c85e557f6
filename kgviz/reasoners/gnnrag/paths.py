"""Reasoning paths: walks from a topic entity over KG triples (either way) to an entity, written
`A → relation → B ← relation ← C` (an arrow points from a triple's head to its tail)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from kgviz.embed.kg_index import relation_text
from kgviz.kg.graph import KnowledgeGraph
from kgviz.trace import StringTriple


@dataclass
class PathStep:
    """One triple walked: its relation, the entity reached, and whether it went head to tail."""

    relation: str
    entity: str
    forward: bool


@dataclass
class ReasoningPath:
    """A walk from `start`; `origin` is the retriever that found it (`gnn` or a method name)."""

    start: str
    steps: list[PathStep] = field(default_factory=list)
    origin: str = "gnn"
    score: float = 0.0  # mean answer probability of the entities passed through (GNN paths)

    @property
    def end(self) -> str:
        return self.steps[-1].entity if self.steps else self.start

    @property
    def triples(self) -> list[StringTriple]:
        found, here = [], self.start
        for step in self.steps:
            found.append(
                (here, step.relation, step.entity)
                if step.forward
                else (step.entity, step.relation, here)
            )
            here = step.entity
        return found

    @property
    def text(self) -> str:
        parts = [self.start]
        for step in self.steps:
            arrow = "→" if step.forward else "←"
            parts += [arrow, relation_text(step.relation), arrow, step.entity]
        return " ".join(parts)


def walk(
    start: str, triples: Sequence[StringTriple], origin: str = "gnn", score: float = 0.0
) -> ReasoningPath:
    """The path from `start` along consecutive triples (each shares an entity with the last)."""
    path, here = ReasoningPath(start, origin=origin, score=score), start
    for head, relation, tail in triples:
        if here not in (head, tail):
            raise ValueError(f"triple {(head, relation, tail)} does not continue from {here!r}")
        forward = here == head
        here = tail if forward else head
        path.steps.append(PathStep(relation, here, forward))
    return path


def start_of(kg: KnowledgeGraph, edges: Sequence[int], target: int) -> int:
    """The entity a path of triple rows ending at `target` starts from (walked backwards)."""
    here = target
    for edge in reversed(edges):
        head, _, tail = kg.triples[edge].tolist()
        here = head if here == tail else tail
    return here


def candidate_paths(
    kg: KnowledgeGraph,
    topics: Sequence[int],
    candidate: int,
    probability: dict[int, float],
    max_hops: int,
    keep: int,
    search: int = 64,
) -> list[ReasoningPath]:
    """Up to `keep` shortest paths from the topic entities to `candidate` (out of at most `search`),
    those through entities with the highest answer `probability` first."""
    found = []
    for edges in kg.shortest_paths(topics, [candidate], max_hops=max_hops, max_paths=search):
        start = start_of(kg, edges, candidate)
        path = walk(kg.entities[start], [kg.triple_names(e) for e in edges])
        inner = [kg.entity_id(step.entity) for step in path.steps[:-1]]
        mean = float(np.mean([probability.get(i, 0.0) for i in inner])) if inner else 1.0
        path.score = round(mean, 5)
        found.append(path)
    found.sort(key=lambda p: (-p.score, p.text))  # ties by text: the same in any store
    return found[:keep]


def evidence_paths(
    triples: Sequence[StringTriple], topics: Sequence[str], max_hops: int, origin: str
) -> list[ReasoningPath]:
    """Another retriever's triples as paths: a shortest path inside them from a topic entity to
    each entity they reach (paths that prefix a longer one dropped), then every triple no path
    uses as a one-step path from its head."""
    graph = KnowledgeGraph.from_triples(triples, name=origin)
    sources = [found for name in topics if (found := graph.entities.get(name)) is not None]
    ends: dict[tuple[int, ...], int] = {}  # path (triple rows) -> the entity it reaches
    for target in range(graph.num_entities) if sources else ():
        if target not in sources:
            routes = graph.shortest_paths(sources, [target], max_hops, 1)
            ends.update((tuple(rows), target) for rows in routes)
    longest = [
        (rows, end)
        for rows, end in ends.items()
        if not any(len(other) > len(rows) and other[: len(rows)] == rows for other in ends)
    ]
    paths = [
        walk(
            graph.entities[start_of(graph, rows, end)],
            [graph.triple_names(e) for e in rows],
            origin,
        )
        for rows, end in longest
    ]
    used = {e for rows, _ in longest for e in rows}
    paths += [
        walk(graph.triple_names(e)[0], [graph.triple_names(e)], origin)
        for e in range(graph.num_triples)
        if e not in used
    ]
    return paths
