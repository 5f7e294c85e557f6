"""Whether a pattern's triples at the question's own entities are triples the KG can hold.

A small LLM often links the question's entity straight to the answer ("Leslie Bibb, written by,
UNKNOWN person 1") where the KG needs a node between them (the films she starred in): the
pattern has one hop too few. The KG shows it without knowing the question's hop count: the
entity never takes that relation in that role. Each such triple becomes a problem for the
pattern's re-ask, naming the relations the entity does have.
"""

from __future__ import annotations

from collections.abc import Sequence

from kgviz.embed.kg_index import relation_text
from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.linking import normalise
from kgviz.reasoners.simgrag.query_pattern import QueryPattern

SHOWN_RELATIONS = 8  # most relations of an entity a problem names
ROLES = {True: "subject", False: "object"}  # `forward` of kg.neighbors: the entity is the head


def relation_roles(kg: KnowledgeGraph, entity: int) -> dict[str, set[str]]:
    """Each relation (as words) of `entity`, with the roles it takes in it."""
    roles: dict[str, set[str]] = {}
    for _, relation, _, forward in kg.neighbors(entity):
        roles.setdefault(relation_text(kg.relations[relation]), set()).add(ROLES[forward])
    return roles


def unfit_triples(pattern: QueryPattern, topics: Sequence[str], kg: KnowledgeGraph) -> list[str]:
    """A problem for each triple in which a topic entity takes a KG relation in a role it never
    has in the KG. Relations outside the KG's vocabulary, UNKNOWN ones and entities the KG lacks
    are left alone (the search's vector pools judge those)."""
    known = {relation_text(name) for name in kg.relations}
    by_name = {normalise(topic): topic for topic in topics}
    problems: list[str] = []
    for edge in pattern.edges:
        if edge.is_unknown or edge.relation not in known:
            continue
        for end, role in ((edge.head, "subject"), (edge.tail, "object")):
            written = pattern.nodes[end].text
            topic = by_name.get(normalise(written))
            entity = _entity(kg, topic, written) if topic else None
            if entity is None:
                continue
            roles = relation_roles(kg, entity)
            if role not in roles.get(edge.relation, set()):
                problems.append(_problem(kg.entities[entity], role, edge.relation, roles))
    return problems


def _entity(kg: KnowledgeGraph, *spellings: str) -> int | None:
    """The KG's id of the first spelling it knows."""
    for name in spellings:
        found = kg.entities.get(name)
        if found is not None:
            return found
    return None


def _problem(topic: str, role: str, relation: str, roles: dict[str, set[str]]) -> str:
    has = ", ".join(
        f"'{name}' (as {' and '.join(sorted(taken))})"
        for name, taken in sorted(roles.items())[:SHOWN_RELATIONS]
    )
    return (
        f"in the KG, {topic!r} is never the {role} of '{relation}'; its triples are {has}. If "
        "the question goes through another entity first, add it as an UNKNOWN node between them"
    )
