"""The pattern a KG path spells: what a pattern step that got the question's structure exactly
right would give (for checking the search apart from the LLM, over any store)."""

from __future__ import annotations

from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.simgrag.query_pattern import QueryPattern, parse_pattern


def path_pattern(kg: KnowledgeGraph, topic: str, answer: str, max_hops: int = 3) -> QueryPattern:
    """The shortest KG path from `topic` to `answer` as a pattern: the topic named, the other
    nodes `UNKNOWN entity N`, relations as their words. None found is a `ValueError`."""
    source, target = kg.entity_id(topic), kg.entity_id(answer)
    paths = kg.shortest_paths([source], [target], max_hops=max_hops, max_paths=1)
    if not paths:
        raise ValueError(f"no path of at most {max_hops} hops from {topic!r} to {answer!r}")
    names, here, triples = {source: topic}, source, []
    for row in paths[0]:
        head, relation, tail = kg.triples[row].tolist()
        here = tail if here == head else head
        names[here] = f"UNKNOWN entity {len(names)}"
        triples.append([names[head], kg.relations[relation].replace("_", " "), names[tail]])
    return parse_pattern({"phrases": [], "triples": triples}, len(triples))
