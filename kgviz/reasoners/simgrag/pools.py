"""Candidate pools: the KG entities and relations nearest (L2) to each named pattern element, as the
trace records them (`PatternPools` of `ElementPool`s, with names and ranks), and as the search
takes them for one component (`for_component`: `search_input.SearchPools` of ids).

All pattern texts are encoded in one batch and searched in one call per index. UNKNOWN elements get
no pool (`None`): the search treats every KG entity or relation as a candidate at distance 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kgviz.embed.kg_index import KGIndex, Neighbour
from kgviz.reasoners.grounding import GROUNDING_DISTANCE, GroundedMention
from kgviz.reasoners.linking import EntityNames
from kgviz.reasoners.simgrag.query_pattern import Component, QueryPattern
from kgviz.reasoners.simgrag.search_input import SearchPool, SearchPools


@dataclass
class ElementPool:
    """The candidates of one pattern node or relation (`kind`), nearest first; empty if unknown."""

    kind: str
    index: int
    text: str
    is_unknown: bool
    candidates: list[Neighbour]

    def as_search_pool(self) -> SearchPool | None:
        if self.is_unknown:
            return None
        return SearchPool(
            np.array([c.id for c in self.candidates], dtype=np.int64),
            np.array([c.distance for c in self.candidates], dtype=np.float64),
        )

    def candidate(self, kg_id: int) -> Neighbour | None:
        """The candidate `kg_id`, None when it is not in the pool."""
        return next((c for c in self.candidates if c.id == kg_id), None)

    def distance_of(self, kg_id: int) -> float:
        """The pool distance of `kg_id` (0 for an unknown element)."""
        found = self.candidate(kg_id)
        return 0.0 if found is None else found.distance


@dataclass
class PatternPools:
    """Pools of every pattern node and relation, plus which given topic entities they contain."""

    nodes: list[ElementPool]
    relations: list[ElementPool]
    topic_in_pools: dict[str, bool]

    def for_component(self, component: Component) -> SearchPools:
        """The search pools of one component, in its local node order."""
        return SearchPools(
            tuple(self.nodes[n].as_search_pool() for n in component.nodes),
            tuple(self.relations[e].as_search_pool() for e in component.edges),
        )


def relation_query(text: str) -> str:
    """Relation phrase as embedded: underscores read as spaces, like the KG's relation labels."""
    return " ".join(text.replace("_", " ").split())


def build_pools(
    index: KGIndex,
    pattern: QueryPattern,
    k_nodes: int,
    k_relations: int,
    topic_entities: Sequence[str] = (),
) -> PatternPools:
    """Top-`k_nodes` entities per named node and top-`k_relations` relations per named relation."""
    node_texts = [n.text for n in pattern.nodes if not n.is_unknown]
    relation_texts = [relation_query(e.relation) for e in pattern.edges if not e.is_unknown]
    vectors = (
        index.embed(node_texts + relation_texts)
        if node_texts or relation_texts
        else np.zeros((0, 0), dtype=np.float32)
    )
    node_hits = (
        index.nearest_entities_batch(node_texts, k_nodes, vectors[: len(node_texts)])
        if node_texts
        else []
    )
    relation_hits = (
        index.nearest_relations_batch(relation_texts, k_relations, vectors[len(node_texts) :])
        if relation_texts
        else []
    )
    node_iter, relation_iter = iter(node_hits), iter(relation_hits)
    nodes = [
        ElementPool("node", i, n.text, n.is_unknown, [] if n.is_unknown else next(node_iter))
        for i, n in enumerate(pattern.nodes)
    ]
    relations = [
        ElementPool(
            "relation", i, e.relation, e.is_unknown, [] if e.is_unknown else next(relation_iter)
        )
        for i, e in enumerate(pattern.edges)
    ]
    pooled = {c.name for pool in nodes for c in pool.candidates}
    return PatternPools(nodes, relations, {name: name in pooled for name in topic_entities})


def pattern_mentions(
    pools: PatternPools, names: EntityNames, threshold: float = GROUNDING_DISTANCE
) -> list[GroundedMention]:
    """The pattern's named nodes as grounding mentions: a KG name (exact or normalised), else
    the nearest candidate of the node's pool, grounded within the threshold."""
    mentions = []
    for pool in pools.nodes:
        if pool.is_unknown:
            continue
        hit = names.lookup(pool.text)
        if hit is not None:
            entity = names.kg.entities[hit[0][0]]
            mentions.append(GroundedMention(pool.text, entity, hit[1], 0.0, True, "pattern"))
        elif pool.candidates:
            best = pool.candidates[0]
            grounded = best.distance <= threshold
            mentions.append(
                GroundedMention(pool.text, best.name, "vector", best.distance, grounded, "pattern")
            )
    return mentions
