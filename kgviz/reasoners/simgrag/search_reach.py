"""What SimGRAG's search reads of a KG that is fetched as it is walked (`KnowledgeGraph.reach`).

The search only ever reads the neighbourhood of an entity mapped to the source of a step, and a
step maps its new node only to neighbours through a relation of the edge's pool that are in the
node's pool. So following the steps in search order over sets of entities, with one batched
fetch per step, reads everything the search can: the search then runs unchanged and exact.
"""

from __future__ import annotations

import numpy as np

from kgviz.errors import StoreError
from kgviz.kg.graph import KnowledgeGraph, concat_ranges
from kgviz.reasoners.simgrag.search_input import SearchPools
from kgviz.reasoners.simgrag.search_order import Step


def reach_for_search(
    kg: KnowledgeGraph, start: int, steps: tuple[Step, ...], pools: SearchPools
) -> KnowledgeGraph:
    """`kg` holding every triple the search from `start` along `steps` can read."""
    if not kg.fetches:
        return kg
    start_pool = pools.nodes[start]
    if start_pool is None:
        raise StoreError(
            "the pattern names no entity or type kgviz could look up, so its search would read "
            "the whole KG; over an endpoint that is refused (name an entity in the question)"
        )
    mapped = {start: np.unique(start_pool.ids)}
    for step in steps:
        sources = mapped[step.src]
        kg = kg.reach(sources, 1)
        if not step.new:
            continue
        positions = concat_ranges(kg.adj.ptr[sources], kg.adj.ptr[sources + 1])
        neighbours, keep = kg.adj.neighbor[positions], np.ones(len(positions), dtype=bool)
        if (relations := pools.relations[step.edge]) is not None:
            keep &= np.isin(kg.adj.relation[positions], relations.ids)
        if (nodes := pools.nodes[step.dst]) is not None:
            keep &= np.isin(neighbours, nodes.ids)
        mapped[step.dst] = np.unique(neighbours[keep]).astype(np.int64)
    return kg
