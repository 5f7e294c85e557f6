"""The boxes a search-tree view draws: a box per recorded step, except that a run of sibling steps
that found no candidate is one box (a failed search makes hundreds), and why such a step found
none, read off the search order the tree keeps."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeGuard

from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.simgrag.query_pattern import QueryPattern
from kgviz.reasoners.simgrag.records import ComponentSearch
from kgviz.reasoners.simgrag.search_tree import SearchTree

EACH = "each of them"  # the entities of a folded run, where the run's pattern node is meant


@dataclass(frozen=True)
class Box:
    """One record, or a run of sibling records that found no candidate; `parent` is the box of
    their parent record (-1 for roots)."""

    records: tuple[int, ...]
    parent: int

    @property
    def first(self) -> int:
        return self.records[0]


def boxes(tree: SearchTree) -> list[Box]:
    """The tree's boxes in record order (a record's box follows its parent's)."""
    drawn: list[Box] = []
    box_of: dict[int, int] = {}
    for record, parent in enumerate(tree.parent):
        last = drawn[-1] if drawn else None
        if (
            last is not None
            and tree.outcome[record] == "no_candidate"
            and tree.outcome[last.first] == "no_candidate"
            and tree.parent[last.first] == parent
        ):
            drawn[-1] = Box((*last.records, record), last.parent)
        else:
            drawn.append(Box((record,), box_of[parent] if parent >= 0 else -1))
        box_of[record] = len(drawn) - 1
    return drawn


def rows(drawn: Sequence[Box]) -> tuple[list[int], list[int], int]:
    """Each box's first leaf row and its number of leaves (a box's children share its rows in
    order), and the number of leaves of the whole tree."""
    span = [0] * len(drawn)
    for index in reversed(range(len(drawn))):  # a box's children follow it
        span[index] = max(span[index], 1)
        if drawn[index].parent >= 0:
            span[drawn[index].parent] += span[index]
    first, free, leaves = [0] * len(drawn), [0] * len(drawn), 0
    for index, box in enumerate(drawn):
        if box.parent < 0:
            first[index], leaves = leaves, leaves + span[index]
        else:
            first[index], free[box.parent] = free[box.parent], free[box.parent] + span[index]
        free[index] = first[index]
    return first, span, leaves


def dead_end(
    tree: SearchTree,
    box: Box,
    part: ComponentSearch,
    pattern: QueryPattern,
    kg: KnowledgeGraph | None,
) -> tuple[str, str] | None:
    """Why the records of `box` found no candidate for the next step of the search order, short
    (for a label) and in full; None when the tree keeps no search order."""
    step = tree.step(tree.depth[box.first] + 1)
    if step is None:
        return None
    edge_index, near, far = step
    edge = pattern.edges[part.pattern_edges[edge_index]]
    named = "" if edge.is_unknown else f"“{edge.relation}” "
    relation = "any relation" if edge.is_unknown else f"a relation of the pool of “{edge.relation}”"
    start = _mapped(tree, box, near, kg) or "?"
    end = _mapped(tree, box, far, kg)
    if end is not None:
        other = end if start == EACH else start if end == EACH else None
        short = f"with {other}" if other else f"{start}–{end}"
        return f"no {named}edge {short}", f"no KG edge with {relation} joins {start} and {end}"
    node = pattern.nodes[part.pattern_nodes[far]]
    target = "an entity not mapped yet" if node.is_unknown else f"a candidate of “{node.text}”"
    short = "to a new entity" if node.is_unknown else f"to a “{node.text}”"
    return f"no {named}edge {short}", f"no KG edge with {relation} joins {start} to {target}"


def _mapped(tree: SearchTree, box: Box, node: int, kg: KnowledgeGraph | None) -> str | None:
    """The entity that pattern node `node` (local) is mapped to where `box` stands: its records'
    own (`EACH` for a run) or an ancestor's; None while it is not mapped."""
    record = box.first
    if tree.pattern_node[record] == node:
        return EACH if len(box.records) > 1 else entity_name(tree, record, kg)
    record = tree.parent[record]
    while record >= 0:
        if tree.pattern_node[record] == node:
            return entity_name(tree, record, kg)
        record = tree.parent[record]
    return None


def _ids_named_by(kg: KnowledgeGraph | None) -> TypeGuard[KnowledgeGraph]:
    """Whether `kg` names a saved tree's ids (a KG behind an endpoint numbers anew at a drop)."""
    return kg is not None and not kg.fetches


def names_known(tree: SearchTree, kg: KnowledgeGraph | None) -> bool:
    """Whether `tree`'s entities have names: its own, or `kg`'s for a tree saved before."""
    return bool(tree.entity_names) or _ids_named_by(kg)


def entity_name(tree: SearchTree, record: int, kg: KnowledgeGraph | None) -> str:
    """The name of `record`'s entity as the search ended (from the KG for a tree saved before
    names were kept, where the KG names its ids)."""
    if record < len(tree.entity_names):
        return tree.entity_names[record]
    entity = tree.entity[record]
    return kg.entities[entity] if _ids_named_by(kg) else f"entity {entity}"


def triple_name(tree: SearchTree, record: int, kg: KnowledgeGraph | None) -> tuple[str, ...] | None:
    """The triple `record` stepped along, by name, as the search ended (None for a root, or
    without names or KG)."""
    if record < len(tree.triple_names):
        return tree.triple_names[record]
    row = tree.triple[record]
    return kg.triple_names(row) if _ids_named_by(kg) and row >= 0 else None
