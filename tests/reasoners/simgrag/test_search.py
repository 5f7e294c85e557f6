"""Top-k subgraph search: optimized == Algorithm 1 == brute force, bounds, trace, semantics."""

from __future__ import annotations

import itertools
import math
import threading
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgviz.kg.graph import KnowledgeGraph
from kgviz.kg.vocab import Vocabulary
from kgviz.reasoners.simgrag import search as search_module
from kgviz.reasoners.simgrag.joint import widened_topk
from kgviz.reasoners.simgrag.search import (
    algorithm1_topk,
    brute_force_topk,
    optimized_topk,
    search_order,
)
from kgviz.reasoners.simgrag.search_input import PatternGraph, SearchPool, SearchPools

UNBOUNDED = {"max_expansions": None, "time_limit_s": None}


def keys(result):
    return [(m.gsd, m.nodes, m.edges) for m in result.matches]


# ----------------------------------------------------------------- strategies
@st.composite
def problems(
    draw, max_entities: int, max_triples: int, max_assignments: int | None, eighths: bool = True
):
    """A random KG, a connected pattern of 1-4 edges, pools and k; mostly with a planted match."""
    num_nodes = draw(st.integers(2, 5))
    edges = [(i, draw(st.integers(0, i - 1))) for i in range(1, num_nodes)]
    for _ in range(draw(st.integers(0, 4 - len(edges)))):
        edges.append(
            draw(
                st.sampled_from(
                    [(u, v) for u in range(num_nodes) for v in range(num_nodes) if u != v]
                )
            )
        )
    edges = [(v, u) if draw(st.booleans()) else (u, v) for u, v in edges]
    pattern = PatternGraph(num_nodes, tuple(edges))

    num_entities = draw(st.integers(max(num_nodes, max_entities // 3), max_entities))
    num_relations = draw(st.integers(1, 3))
    entity, relation = st.integers(0, num_entities - 1), st.integers(0, num_relations - 1)
    rows = draw(
        st.lists(st.tuples(entity, relation, entity), min_size=num_entities, max_size=max_triples)
    )
    planted = draw(st.permutations(range(num_entities)))[:num_nodes]
    planted_relations = [draw(relation) for _ in edges]
    if draw(st.integers(0, 3)):  # plant a match: one triple per pattern edge, random direction
        for (u, v), r in zip(edges, planted_relations):
            rows.append(
                (planted[u], r, planted[v]) if draw(st.booleans()) else (planted[v], r, planted[u])
            )
    kg = KnowledgeGraph.from_triples([(f"e{h}", f"r{r}", f"e{t}") for h, r, t in rows])

    distance = (
        st.integers(0, 24).map(lambda x: x / 8)
        if eighths
        else st.floats(0.0, 2.0, allow_nan=False, allow_infinity=False)
    )

    def pool(size: int, must: int | None):
        ids = draw(
            st.lists(
                st.integers(0, size - 1),
                min_size=1 if draw(st.integers(0, 9)) else 0,
                max_size=min(size, 6),
                unique=True,
            )
        )
        if must is not None and must not in ids and draw(st.integers(0, 9)):
            ids.append(must)
        return SearchPool(np.array(ids, dtype=np.int64), np.array([draw(distance) for _ in ids]))

    def node_pool(v: int):
        name = f"e{planted[v]}"
        return pool(kg.num_entities, kg.entity_id(name) if name in kg.entities else None)

    node_pools = [node_pool(v) if draw(st.booleans()) else None for v in range(num_nodes)]
    if max_assignments is not None:  # keep the brute force small: make unknown nodes known
        for v in reversed(range(num_nodes)):
            sizes = [kg.num_entities if p is None else len(p) for p in node_pools]
            if math.prod(sizes) <= max_assignments:
                break
            if node_pools[v] is None:
                node_pools[v] = node_pool(v)
    rel_pools = [
        pool(kg.num_relations, kg.relations.get(f"r{r}")) if draw(st.booleans()) else None
        for r in planted_relations
    ]
    return kg, pattern, SearchPools(tuple(node_pools), tuple(rel_pools)), draw(st.integers(1, 5))


FAST = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(problems(max_entities=8, max_triples=14, max_assignments=3000))
def test_optimized_equals_algorithm1_equals_brute_force(problem):
    kg, pattern, pools, k = problem
    reference = keys(brute_force_topk(kg, pattern, pools, k))
    plain = algorithm1_topk(kg, pattern, pools, k, **UNBOUNDED)
    optimized = optimized_topk(kg, pattern, pools, k, **UNBOUNDED)
    assert plain.status == optimized.status == "complete"
    assert keys(plain) == reference
    assert keys(optimized) == reference
    assert optimized.expanded <= plain.expanded
    assert [m.gsd for m in optimized.matches] == sorted(m.gsd for m in optimized.matches)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(max_entities=8, max_triples=14, max_assignments=3000, eighths=False))
def test_identical_with_arbitrary_float_distances(problem):
    kg, pattern, pools, k = problem
    reference = keys(brute_force_topk(kg, pattern, pools, k))
    assert keys(algorithm1_topk(kg, pattern, pools, k, **UNBOUNDED)) == reference
    assert keys(optimized_topk(kg, pattern, pools, k, **UNBOUNDED)) == reference


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(max_entities=30, max_triples=80, max_assignments=None))
def test_optimized_equals_algorithm1_on_larger_graphs(problem):
    kg, pattern, pools, k = problem
    plain = algorithm1_topk(kg, pattern, pools, k, **UNBOUNDED)
    optimized = optimized_topk(
        kg, pattern, pools, k, **UNBOUNDED, record_tree=True, max_tree_nodes=10**6
    )
    assert keys(optimized) == keys(plain)
    tree = optimized.tree
    counts = np.array(tree.count)
    outcomes = np.array(tree.outcome)
    assert tree.dropped == 0
    assert (outcomes != "pruned_bound").sum() == optimized.expanded
    assert counts[outcomes == "pruned_bound"].sum() == optimized.pruned
    assert (outcomes == "in_topk").sum() == len(optimized.matches)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(max_entities=30, max_triples=80, max_assignments=None))
def test_numpy_hub_scan_equals_the_plain_python_scan(problem):
    """Scanning every neighbourhood with numpy, as hubs are, changes nothing: same top-k,
    counts and search tree."""
    kg, pattern, pools, k = problem
    traced = {**UNBOUNDED, "record_tree": True, "max_tree_nodes": 10**6}
    small = optimized_topk(kg, pattern, pools, k, **traced)
    with patch.object(search_module, "SMALL_DEGREE", 0):
        hub = optimized_topk(kg, pattern, pools, k, **traced)
        plain = algorithm1_topk(kg, pattern, pools, k, **UNBOUNDED)
    assert keys(hub) == keys(small) == keys(plain)
    assert (hub.status, hub.expanded, hub.pruned) == (small.status, small.expanded, small.pruned)
    assert hub.tree.columns() == small.tree.columns()


# ----------------------------------------------------------------- semantics
def test_edge_direction_is_ignored():
    kg = KnowledgeGraph.from_triples([("a", "r", "b")])
    a, b, r = kg.entity_id("a"), kg.entity_id("b"), kg.relation_id("r")
    for pattern in (PatternGraph(2, ((0, 1),)), PatternGraph(2, ((1, 0),))):
        pools = SearchPools((([b], [0.5]), ([a], [0.25])), (([r], [0.125]),))
        for search in (brute_force_topk, algorithm1_topk, optimized_topk):
            assert keys(search(kg, pattern, pools)) == [(0.875, (b, a), (0,))]


def test_mapping_is_injective():
    kg = KnowledgeGraph.from_triples([("a", "r", "b"), ("c", "r", "c")])
    path = PatternGraph(3, ((0, 1), (1, 2)))
    pools = SearchPools((None, None, None), (None, None))
    for search in (brute_force_topk, algorithm1_topk, optimized_topk):
        assert search(kg, path, pools).matches == []  # a-b-a and the self-loop c-c are not matches
    one = SearchPools((None, None), (None,))
    found = optimized_topk(kg, PatternGraph(2, ((0, 1),)), one, k=10)
    assert sorted(m.nodes for m in found.matches) == [(0, 1), (1, 0)]


def test_parallel_kg_triples_are_one_match_with_the_closest_relation():
    """A subgraph is its node map (Def. 2): three triples between a and b are one match, not three
    near-duplicates filling the top-k; the other node maps follow it."""
    kg = KnowledgeGraph.from_triples(
        [("a", "r", "b"), ("b", "s", "a"), ("a", "s", "b"), ("a", "s", "c")]
    )
    pattern = PatternGraph(2, ((0, 1),))
    pools = SearchPools((([0], [0.0]), None), (([0, 1], [0.25, 0.5]),))
    expected = [(0.25, (0, 1), (0,)), (0.5, (0, 2), (3,))]
    for search in (brute_force_topk, algorithm1_topk, optimized_topk):
        assert keys(search(kg, pattern, pools, k=5)) == expected


def test_parallel_pattern_edges_need_distinct_triples():
    pattern = PatternGraph(2, ((0, 1), (1, 0)))
    pools = SearchPools((([0], [0.0]), None), (None, None))
    single = KnowledgeGraph.from_triples([("a", "r", "b")])
    assert optimized_topk(single, pattern, pools).matches == []
    double = KnowledgeGraph.from_triples([("a", "r", "b"), ("a", "s", "b")])
    for search in (brute_force_topk, algorithm1_topk, optimized_topk):
        # the two ways to lay the pattern's edges on a and b are one node map: one match
        assert [m.edges for m in search(double, pattern, pools).matches] == [(0, 1)]


def test_single_node_pattern_and_empty_pool():
    kg = KnowledgeGraph.from_triples([("a", "r", "b"), ("b", "r", "c")])
    lone = PatternGraph(1, ())
    pools = SearchPools((([2, 1], [0.5, 0.25]),), ())
    assert keys(optimized_topk(kg, lone, pools, k=1)) == [(0.25, (1,), ())]
    empty = SearchPools((([], []), None), (None,))
    result = optimized_topk(kg, PatternGraph(2, ((0, 1),)), empty)
    assert result.matches == [] and result.status == "complete"


def test_pool_normalisation_and_search_order():
    pool = SearchPool(np.array([5, 3, 5, 1]), np.array([0.5, 0.25, 0.125, 0.25]))
    assert pool.ids.tolist() == [5, 1, 3] and pool.distances.tolist() == [0.125, 0.25, 0.25]
    pattern = PatternGraph(4, ((0, 1), (1, 2), (2, 0), (2, 3)))
    pools = SearchPools((None, ([1, 2], [0.0, 0.0]), None, None), (None,) * 4)
    start, steps = search_order(pattern, pools, num_entities=100)
    assert start == 1
    assert [(s.edge, s.src, s.dst, s.new) for s in steps] == [
        (0, 1, 0, True),
        (2, 0, 2, True),
        (1, 2, 1, False),
        (3, 2, 3, True),
    ]


@pytest.mark.parametrize(
    "bad",
    [
        lambda: PatternGraph(3, ((0, 1),)),
        lambda: PatternGraph(2, ((0, 0), (0, 1))),
        lambda: PatternGraph(2, ((0, 2),)),
        lambda: PatternGraph(0, ()),
    ],
)
def test_malformed_patterns_are_rejected(bad):
    with pytest.raises(ValueError):
        bad()


def test_pools_must_fit_pattern_and_graph():
    kg = KnowledgeGraph.from_triples([("a", "r", "b")])
    pattern = PatternGraph(2, ((0, 1),))
    with pytest.raises(ValueError):
        optimized_topk(kg, pattern, SearchPools((None,), (None,)))
    with pytest.raises(ValueError):
        optimized_topk(kg, pattern, SearchPools((([7], [0.0]), None), (None,)))
    with pytest.raises(ValueError):
        optimized_topk(kg, pattern, SearchPools((None, None), (None,)), k=0)


# ----------------------------------------------------------------- bounds and trace
@pytest.fixture(scope="module")
def random_kg() -> KnowledgeGraph:
    rng = np.random.default_rng(0)
    n, m, r = 3000, 30000, 5
    triples = np.stack([rng.integers(0, n, m), rng.integers(0, r, m), rng.integers(0, n, m)], 1)
    return KnowledgeGraph(
        Vocabulary((f"e{i}" for i in range(n)), kind="entity"),
        Vocabulary((f"r{i}" for i in range(r)), kind="relation"),
        np.unique(triples, axis=0),
    )


UNKNOWN_PATH = (PatternGraph(4, ((0, 1), (1, 2), (2, 3))), SearchPools((None,) * 4, (None,) * 3))


@pytest.mark.parametrize("search", [algorithm1_topk, optimized_topk])
def test_node_budget_stops_unknown_only_pattern(random_kg, search):
    result = search(random_kg, *UNKNOWN_PATH, max_expansions=500, time_limit_s=None)
    assert result.status == "node_budget"
    assert result.expanded == 500
    assert len(result.matches) == 3 and all(m.gsd == 0.0 for m in result.matches)


@pytest.mark.parametrize("search", [algorithm1_topk, optimized_topk])
def test_time_limit(random_kg, search):
    zero = search(random_kg, *UNKNOWN_PATH, max_expansions=None, time_limit_s=0)
    assert (zero.status, zero.expanded, zero.matches) == ("time_limit", 0, [])
    short = search(random_kg, *UNKNOWN_PATH, max_expansions=None, time_limit_s=0.05)
    assert short.status == "time_limit" and short.expanded > 0 and short.elapsed_s < 1.0


def test_time_limit_works_in_a_thread(random_kg):
    results = []
    worker = threading.Thread(
        target=lambda: results.append(
            optimized_topk(random_kg, *UNKNOWN_PATH, max_expansions=None, time_limit_s=0.05)
        )
    )
    worker.start()
    worker.join(timeout=5)
    assert not worker.is_alive() and results[0].status == "time_limit"


def test_tree_cap_keeps_a_prefix(random_kg):
    rng = np.random.default_rng(1)
    ids = rng.choice(random_kg.num_entities, 16, replace=False)
    pools = SearchPools(
        ((ids, np.arange(16) / 8), None, None), (([0, 1], [0.0, 0.5]), ([2, 3], [0.25, 0.75]))
    )
    pattern = PatternGraph(3, ((0, 1), (1, 2)))
    full = optimized_topk(random_kg, pattern, pools, record_tree=True, max_tree_nodes=10**6)
    capped = optimized_topk(random_kg, pattern, pools, record_tree=True, max_tree_nodes=10)
    assert keys(full) == keys(capped) == keys(algorithm1_topk(random_kg, pattern, pools))
    assert full.pruned > 0 and full.tree.dropped == 0
    assert len(capped.tree) == 10 and capped.tree.dropped == len(full.tree) - 10
    assert all(p < i for i, p in enumerate(capped.tree.parent))
    assert capped.tree.parent == full.tree.parent[:10]
    assert optimized_topk(random_kg, pattern, pools).tree is None
    columns = full.tree.columns()
    assert set(columns["outcome"]) >= {"expanded", "in_topk", "pruned_bound"}
    roots = [i for i, depth in enumerate(columns["depth"]) if depth == 0]
    assert all(columns["parent"][i] == -1 for i in roots)


def test_a_tree_keeps_the_kth_best_each_pruning_lost_against_and_the_search_order(random_kg):
    """The k-th best GSD when a record was pruned: below its bound, and no better than the final
    k-th best (the top k only improves); the other records keep none. The search order names
    each depth's pattern edge and the node it maps."""
    rng = np.random.default_rng(1)
    ids = rng.choice(random_kg.num_entities, 16, replace=False)
    pools = SearchPools(
        ((ids, np.arange(16) / 8), None, None), (([0, 1], [0.0, 0.5]), ([2, 3], [0.25, 0.75]))
    )
    pattern = PatternGraph(3, ((0, 1), (1, 2)))
    result = optimized_topk(random_kg, pattern, pools, record_tree=True, max_tree_nodes=10**6)
    tree, final = result.tree, result.matches[-1].gsd
    pruned = [i for i, outcome in enumerate(tree.outcome) if outcome == "pruned_bound"]
    assert pruned and all(tree.bound[i] > tree.kth_of(i) >= final for i in pruned)
    assert all(tree.kth_of(i) is None for i in range(len(tree)) if i not in pruned)
    _, order = search_order(pattern, pools, random_kg.num_entities)
    assert tree.steps == [(step.edge, step.src, step.dst) for step in order]
    for record, depth in enumerate(tree.depth):
        if depth:
            edge, _, far = tree.step(depth)
            assert (tree.pattern_edge[record], tree.pattern_node[record]) == (edge, far)
    assert tree.step(0) is None and tree.step(len(order) + 1) is None
    assert tree.columns()["kth_best"] == [tree.kth_of(i) for i in range(len(tree))]


# ----------------------------------------------------------------- disconnected patterns
@st.composite
def two_components(draw):
    """A problem as above plus a second component (a one- or two-edge path) over the same KG."""
    kg, first, first_pools, k = draw(problems(max_entities=8, max_triples=14, max_assignments=400))
    second = (
        PatternGraph(3, ((0, 1), (1, 2))) if draw(st.booleans()) else PatternGraph(2, ((0, 1),))
    )
    distance = st.integers(0, 24).map(lambda x: x / 8)

    def pool(size: int):
        ids = draw(
            st.lists(st.integers(0, size - 1), min_size=1, max_size=min(size, 4), unique=True)
        )
        return SearchPool(np.array(ids, dtype=np.int64), np.array([draw(distance) for _ in ids]))

    second_pools = SearchPools(
        tuple(pool(kg.num_entities) for _ in range(second.num_nodes)),
        tuple(pool(kg.num_relations) if draw(st.booleans()) else None for _ in second.edges),
    )
    return kg, [(first, first_pools), (second, second_pools)], k


def joint_brute_force(kg, parts, k):
    """Every match of every component (brute force), joined where node maps are disjoint."""
    lists = [brute_force_topk(kg, pattern, pools, 10**9).matches for pattern, pools in parts]
    joined = sorted(
        math.fsum(m.gsd for m in combo)
        for combo in itertools.product(*lists)
        if len({e for m in combo for e in m.nodes}) == sum(len(m.nodes) for m in combo)
    )
    return joined[:k]


@FAST
@given(two_components())
def test_the_joint_top_k_of_two_components_equals_brute_force(problem):
    kg, parts, k = problem

    def search(part, width):
        pattern, pools = parts[part]
        return optimized_topk(kg, pattern, pools, width, **UNBOUNDED)

    results, found, width = widened_topk(search, len(parts), k)
    assert [joint.gsd for joint in found] == joint_brute_force(kg, parts, k)
    for joint in found:  # each a valid joint match: its components' node maps disjoint
        picked = [results[i].matches[pick] for i, pick in enumerate(joint.picks)]
        assert len({e for m in picked for e in m.nodes}) == sum(len(m.nodes) for m in picked)
    most = max(len(brute_force_topk(kg, p, pools, 10**9).matches) for p, pools in parts)
    assert width <= 2 * max(k, most)  # widened only while a list could still hold more


def test_a_clash_between_components_widens_their_lists():
    """The best matches of two components share an entity: the joint top-1 needs a second match."""
    kg = KnowledgeGraph.from_triples(
        [("a", "r", "b"), ("a", "r", "c"), ("a", "s", "d"), ("d", "s", "e")]
    )
    a = kg.entity_id("a")
    one = (PatternGraph(2, ((0, 1),)), SearchPools((([a], [0.0]), None), (None,)))
    other = (
        PatternGraph(2, ((0, 1),)),
        SearchPools(((np.array([a, kg.entity_id("d")]), np.array([0.0, 1.0])), None), (None,)),
    )
    results, found, width = widened_topk(
        lambda part, w: optimized_topk(kg, *[one, other][part], w, **UNBOUNDED), 2, 1
    )
    assert width > 1 and len(found) == 1 and found[0].gsd == 1.0
    picked = [results[i].matches[p] for i, p in enumerate(found[0].picks)]
    assert picked[1].nodes == (kg.entity_id("d"), kg.entity_id("e"))
