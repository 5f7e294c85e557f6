"""A runaway search: a hub with millions of neighbours cannot overrun SimGRAG's time limit."""

import numpy as np

from kgviz.kg.graph import KnowledgeGraph
from kgviz.kg.vocab import Vocabulary
from kgviz.reasoners.simgrag.search import optimized_topk
from kgviz.reasoners.simgrag.search_input import PatternGraph, SearchPools


def test_a_huge_hub_respects_a_one_millisecond_limit():
    n = 2_000_001  # entity 0 is a hub linked to every other entity
    others = np.arange(1, n)
    triples = np.stack(
        [np.zeros(n - 1, dtype=np.int64), np.zeros(n - 1, dtype=np.int64), others], 1
    )
    kg = KnowledgeGraph(
        Vocabulary((f"e{i}" for i in range(n)), kind="entity"),
        Vocabulary(["r"], kind="relation"),
        triples,
    )
    pattern = PatternGraph(3, ((0, 1), (1, 2)))
    pools = SearchPools(((np.array([0]), np.array([0.0])), None, None), (None, None))
    result = optimized_topk(kg, pattern, pools, k=3, max_expansions=None, time_limit_s=0.001)
    assert result.status == "time_limit"
    assert result.elapsed_s < 0.1  # was 1.3 s before the scan checked its deadline
