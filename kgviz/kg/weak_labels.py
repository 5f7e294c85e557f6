"""Weak supervision for retrievers: the triples on shortest topic -> answer paths."""

from __future__ import annotations

from collections.abc import Iterable

from kgviz.kg.graph import KnowledgeGraph


def resolve(kg: KnowledgeGraph, names: Iterable[str]) -> list[int]:
    """Ids of the names that are KG entities (others are skipped)."""
    return [found for name in names if (found := kg.entities.get(name)) is not None]


def shortest_path_edges(
    kg: KnowledgeGraph, topics: Iterable[int], answers: Iterable[int], max_hops: int = 3
) -> set[int]:
    """Triple rows lying on some shortest undirected path from a topic entity to an answer:
    every one of them, however many paths there are (`KnowledgeGraph.shortest_path_edges`)."""
    return set(kg.shortest_path_edges(topics, answers, max_hops).tolist())
