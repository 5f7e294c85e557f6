"""A runaway search: a hub with millions of neighbours cannot overrun SimGRAG's time limit, in
the scan of its neighbourhood or in putting its candidates in order."""

import time

import numpy as np
import pytest

from kgviz.kg.graph import KnowledgeGraph
from kgviz.kg.vocab import Vocabulary
from kgviz.reasoners.simgrag.greedy_order import CHUNK, greedy_blocks
from kgviz.reasoners.simgrag.search import optimized_topk
from kgviz.reasoners.simgrag.search_input import PatternGraph, SearchPools

HUB_NEIGHBOURS = 3_000_000


@pytest.fixture(scope="module")
def hub_kg() -> KnowledgeGraph:
    """Entity 0 is a hub linked to 3M others, over 5 relations."""
    others = np.arange(1, HUB_NEIGHBOURS + 1)
    triples = np.stack([np.zeros_like(others), others % 5, others], 1)
    return KnowledgeGraph(
        Vocabulary((f"e{i}" for i in range(HUB_NEIGHBOURS + 1)), kind="entity"),
        Vocabulary([f"r{i}" for i in range(5)], kind="relation"),
        triples,
    )


@pytest.mark.parametrize("limit_s, bound_s", [(0.001, 0.1), (0.1, 1.0)])
def test_a_huge_hub_respects_the_time_limit(hub_kg, limit_s, bound_s):
    """Unknown neighbours along relation pools: every one of 3M half-edges is a candidate, and
    ordering them whole took up to 0.5 s after a 0.1 s limit had passed."""
    pattern = PatternGraph(3, ((0, 1), (1, 2)))
    relations = (np.array([0, 1, 2, 3, 4]), np.array([0.1, 0.2, 0.2, 0.3, 0.3]))
    pools = SearchPools(((np.array([0]), np.array([0.0])), None, None), (relations, None))
    result = optimized_topk(hub_kg, pattern, pools, k=3, max_expansions=None, time_limit_s=limit_s)
    assert result.status == "time_limit"
    assert result.elapsed_s < bound_s


@pytest.mark.parametrize("n", [10, CHUNK + 1, 5 * CHUNK])
@pytest.mark.parametrize("distinct_costs", [3, 10**9])
def test_greedy_blocks_order_as_one_sort_would(n, distinct_costs):
    rng = np.random.default_rng(n)
    cost = rng.integers(0, distinct_costs, n) / 7.0
    row = rng.permutation(4 * n)[:n]
    blocks = list(greedy_blocks(cost, row, lambda: None))
    assert np.array_equal(np.concatenate(blocks), np.lexsort((row, cost)))
    assert len(blocks[0]) <= max(n, 256) and (n <= CHUNK or len(blocks) > 1)


def test_greedy_blocks_check_the_deadline_between_chunks():
    """Picking the first block of 1M candidates checks the deadline many times on the way (so
    a check that says stop stops it), where one sort would check it never."""
    checks = []

    def check() -> None:
        checks.append(time.monotonic())
        if len(checks) == 5:
            raise TimeoutError

    cost = np.random.default_rng(0).random(1_000_000)
    with pytest.raises(TimeoutError):
        next(greedy_blocks(cost, np.arange(len(cost)), check))
