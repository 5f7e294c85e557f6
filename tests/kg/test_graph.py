import random

import networkx as nx
import numpy as np
import pytest

from kgviz.errors import UnknownNameError
from kgviz.kg import KnowledgeGraph
from kgviz.kg.store import load_graph, save_graph

TRIPLES = [
    ("Forrest Gump", "directed_by", "Robert Zemeckis"),
    ("Forrest Gump", "starred_actors", "Tom Hanks"),
    ("Cast Away", "starred_actors", "Tom Hanks"),
    ("Cast Away", "directed_by", "Robert Zemeckis"),
    ("Big", "starred_actors", "Tom Hanks"),
    ("Big", "directed_by", "Penny Marshall"),
    ("Forrest Gump", "directed_by", "Robert Zemeckis"),  # duplicate
    ("tom hanks", "has_tags_of", "Big"),  # a different node: names are case-sensitive
]


@pytest.fixture
def kg():
    return KnowledgeGraph.from_triples(TRIPLES, name="tiny")


def test_vocabularies_and_dedup(kg):
    assert kg.num_triples == 7
    assert kg.num_entities == 7
    assert kg.num_relations == 3
    assert kg.entity_id("tom hanks") != kg.entity_id("Tom Hanks")
    with pytest.raises(UnknownNameError, match="did you mean 'Tom Hanks'"):
        kg.entity_id("TOM HANKS")


def test_neighbors_each_direction(kg):
    hanks = kg.entity_id("Tom Hanks")
    incoming = {(kg.entities[n], kg.relations[r]) for _, r, n, fwd in kg.neighbors(hanks, "in")}
    assert incoming == {
        ("Forrest Gump", "starred_actors"),
        ("Cast Away", "starred_actors"),
        ("Big", "starred_actors"),
    }
    assert kg.neighbors(hanks, "out") == []
    both = kg.neighbors(kg.entity_id("Big"), "both")
    assert {(kg.entities[n], fwd) for _, _, n, fwd in both} == {
        ("Tom Hanks", True),
        ("Penny Marshall", True),
        ("tom hanks", False),
    }


def random_graph(seed: int, n: int = 40, m: int = 120):
    rng = random.Random(seed)
    triples = [
        (f"e{rng.randrange(n)}", f"r{rng.randrange(4)}", f"e{rng.randrange(n)}") for _ in range(m)
    ]
    return KnowledgeGraph.from_triples(triples), triples


@pytest.mark.parametrize("seed", range(5))
def test_csr_matches_triples(seed):
    kg, _ = random_graph(seed)
    for node in range(kg.num_entities):
        out = sorted((r, t) for h, r, t in kg.triples.tolist() if h == node)
        assert sorted((r, n) for _, r, n, _ in kg.neighbors(node, "out")) == out
        inc = sorted((r, h) for h, r, t in kg.triples.tolist() if t == node)
        assert sorted((r, n) for _, r, n, _ in kg.neighbors(node, "in")) == inc
        span = kg.adj.span(node)
        assert list(kg.adj.relation[span]) == sorted(kg.adj.relation[span])  # sorted by relation


@pytest.mark.parametrize("seed", range(5))
def test_k_hop_subgraph_matches_networkx(seed):
    kg, _ = random_graph(seed)
    undirected = nx.Graph()
    undirected.add_nodes_from(range(kg.num_entities))
    undirected.add_edges_from((h, t) for h, _, t in kg.triples.tolist())
    for hops in (1, 2, 3):
        nodes, edges = kg.k_hop_subgraph([0], hops)
        expected = nx.single_source_shortest_path_length(undirected, 0, cutoff=hops)
        assert set(nodes.tolist()) == set(expected)
        dist = kg.distances_from([0], hops)
        walked = {
            e
            for e, (h, _, t) in enumerate(kg.triples.tolist())
            if min(dist[h] if dist[h] >= 0 else 99, dist[t] if dist[t] >= 0 else 99) < hops
        }
        assert set(edges.tolist()) == walked


def test_k_hop_respects_max_nodes(kg):
    nodes, _ = kg.k_hop_subgraph([kg.entity_id("Tom Hanks")], 2, max_nodes=4)
    assert len(nodes) <= 4


@pytest.mark.parametrize("seed", range(5))
def test_shortest_paths_match_networkx(seed):
    kg, _ = random_graph(seed, n=30, m=50)
    simple = nx.Graph()
    simple.add_nodes_from(range(kg.num_entities))
    simple.add_edges_from((h, t) for h, _, t in kg.triples.tolist() if h != t)
    for target in range(1, kg.num_entities):
        paths = kg.shortest_paths([0], [target], max_hops=6, max_paths=10_000)
        try:
            expected = {tuple(p) for p in nx.all_shortest_paths(simple, 0, target)}
        except nx.NetworkXNoPath:
            expected = set()
        if len(expected) and len(next(iter(expected))) - 1 > 6:
            expected = set()
        # turn each edge path into its node sequence, walking from the source
        node_paths = set()
        for path in paths:
            node, seq = 0, [0]
            for edge in path:
                h, _, t = kg.triples[edge].tolist()
                assert node in (h, t)
                node = t if node == h else h
                seq.append(node)
            assert seq[-1] == target
            node_paths.add(tuple(seq))
        assert node_paths == expected


def test_shortest_paths_are_relation_labelled(kg):
    paths = kg.shortest_paths([kg.entity_id("Tom Hanks")], [kg.entity_id("Robert Zemeckis")])
    named = {tuple(kg.triple_names(e) for e in p) for p in paths}
    assert named == {
        (
            ("Forrest Gump", "starred_actors", "Tom Hanks"),
            ("Forrest Gump", "directed_by", "Robert Zemeckis"),
        ),
        (
            ("Cast Away", "starred_actors", "Tom Hanks"),
            ("Cast Away", "directed_by", "Robert Zemeckis"),
        ),
    }


def test_exports(kg):
    graph = kg.to_networkx()
    assert graph.number_of_edges() == kg.num_triples
    assert graph["Forrest Gump"]["Tom Hanks"]["starred_actors"]["relation"] == "starred_actors"
    data = kg.to_pyg()
    assert data.num_nodes == kg.num_entities
    assert data.edge_index.shape == (2, kg.num_triples)
    assert data.edge_type.tolist() == kg.triples[:, 1].tolist()


def test_save_load_roundtrip(kg, tmp_path):
    save_graph(kg, tmp_path / "g.npz")
    loaded = load_graph(tmp_path / "g.npz")
    assert list(loaded.entities) == list(kg.entities)
    assert list(loaded.relations) == list(kg.relations)
    assert np.array_equal(loaded.triples, kg.triples)
    assert loaded.name == "tiny"
    assert not list(tmp_path.glob("*.tmp"))


def test_csr_order_equals_lexsort_with_ties_and_when_too_big_to_pack():
    from kgviz.kg.graph import csr_order

    rng = np.random.default_rng(0)
    src, rel, dst = (rng.integers(0, 50, 5000), rng.integers(0, 7, 5000), rng.integers(0, 50, 5000))
    expected = np.lexsort((dst, rel, src))
    assert (csr_order(50, src, rel, dst) == expected).all()  # many exact ties: stable like lexsort
    assert (csr_order(2**31, src, rel, dst) == expected).all()  # 2**62 * 7 > int64: lexsort path


@pytest.mark.parametrize("seed", range(8))
def test_shortest_path_edges_are_those_of_every_shortest_path(seed):
    """The gradient walk finds exactly the triples of the enumerated shortest paths, uncapped,
    for several sources and targets at once (targets beyond the limit, or sources, add none)."""
    kg, _ = random_graph(seed, n=40, m=90)
    sources, targets = [0, 3], list(range(5, 40, 3)) + [3]
    for max_hops in (1, 2, 4):
        enumerated = {
            edge for path in kg.shortest_paths(sources, targets, max_hops, 10**6) for edge in path
        }
        assert set(kg.shortest_path_edges(sources, targets, max_hops).tolist()) == enumerated


@pytest.mark.parametrize("seed", range(5))
def test_appended_triples_give_the_adjacency_a_fresh_build_gives(seed):
    """A graph grown by `_append` (as a KG behind an endpoint grows) has exactly the adjacency
    arrays of the same triples built at once, reciprocal same-relation pairs and all."""
    rng = np.random.default_rng(seed)
    names = [f"e{i}" for i in range(30)]
    triples = {
        (str(rng.choice(names)), f"r{rng.integers(3)}", str(rng.choice(names))) for _ in range(150)
    }
    triples |= {(t, r, h) for h, r, t in list(triples)[:20]}  # equal keys, both directions
    whole = KnowledgeGraph.from_triples(sorted(triples))
    grown = KnowledgeGraph(whole.entities, whole.relations, whole.triples[:0])
    for part in np.array_split(whole.triples, [1, 7, 40, 41, 120]):
        grown._append(part)
    for kind in ("out", "inc", "adj"):
        built, merged = getattr(whole, kind), getattr(grown, kind)
        for field in ("ptr", "neighbor", "relation", "edge", "forward"):
            assert np.array_equal(getattr(built, field), getattr(merged, field)), (kind, field)
