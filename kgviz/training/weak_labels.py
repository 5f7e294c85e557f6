"""Weak supervision for retrievers: the triples on shortest topic -> answer paths."""

from __future__ import annotations

from collections.abc import Iterable

from kgviz.kg.graph import KnowledgeGraph


def resolve(kg: KnowledgeGraph, names: Iterable[str]) -> list[int]:
    """Ids of the names that are KG entities (others are skipped)."""
    return [found for name in names if (found := kg.entities.get(name)) is not None]


def shortest_path_edges(kg: KnowledgeGraph, topics: Iterable[int], answers: Iterable[int],
                        max_hops: int = 3, max_paths: int = 32) -> set[int]:
    """Triple rows lying on some shortest undirected path from a topic entity to an answer."""
    topic_list = list(topics)
    edges: set[int] = set()
    for path in kg.shortest_paths(topic_list, answers, max_hops=max_hops, max_paths=max_paths):
        edges.update(path)
    return edges
