"""The Milvus backend: Milvus Lite and a loopback server against faiss flat; reuse; errors."""

import random
import socket
import sys
import time
import warnings

import numpy as np
import pytest

from kgviz.cli import main
from kgviz.datasets import get_dataset
from kgviz.embed import FaissIndex, KGIndex, MilvusIndex
from kgviz.embed.milvus_index import connect
from kgviz.errors import KgvizError


def unit_vectors(n: int, dim: int = 32, seed: int = 0) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


Hits = tuple[np.ndarray, np.ndarray]  # (distances, ids) as VectorIndex.search returns them


def assert_same_top_k(expected: Hits, found: Hits) -> None:
    """The same distance at each rank and the same ids, but equally distant ids may swap places
    (names that differ only in case embed identically), also across the k-th place."""
    (want_d, want_i), (got_d, got_i) = expected, found
    assert got_i.shape == want_i.shape
    np.testing.assert_allclose(got_d, want_d, atol=1e-4)
    for want_ids, got_ids, want_row, got_row in zip(want_i, got_i, want_d, got_d):
        cut = want_row[-1] - 1e-5
        assert set(want_ids[want_row < cut]) <= set(got_ids)
        assert set(got_ids[got_row < cut]) <= set(want_ids)


# ------------------------------------------------------------------------- MetaQA, Milvus Lite
@pytest.fixture(scope="module")
def metaqa(shared_data):
    return get_dataset("metaqa-1hop", root=shared_data)


@pytest.fixture(scope="module")
def metaqa_lite(metaqa, tmp_path_factory):
    """The MetaQA index in a fresh Milvus Lite file (embeddings from the user's cache)."""
    uri = str(tmp_path_factory.mktemp("milvus") / "metaqa.db")
    return uri, KGIndex.build(metaqa.kg, kind="milvus", milvus_uri=uri)


@pytest.mark.slow
def test_milvus_lite_matches_faiss_flat_on_metaqa(metaqa, metaqa_lite):
    flat, (_, lite) = KGIndex.build(metaqa.kg), metaqa_lite
    assert len(lite.entity_index) == len(flat.entity_index) == 43_234
    assert len(lite.relation_index) == 9
    rng = random.Random(0)
    texts = rng.sample(list(metaqa.kg.entities), 20)
    texts += [record.question for record in rng.sample(metaqa.questions("dev"), 20)]
    vectors = flat.embed(texts)
    assert_same_top_k(flat.entity_index.search(vectors, 10), lite.entity_index.search(vectors, 10))
    for want, got in zip(
        flat.nearest_entities_batch(texts, 10, vectors),
        lite.nearest_entities_batch(texts, 10, vectors),
    ):
        assert got[0].name == want[0].name
    assert [h.name for h in lite.nearest_relations("who directed", 3)] == [
        h.name for h in flat.nearest_relations("who directed", 3)
    ]
    assert lite.nearest_entities("Tom Hanks", 1)[0].name == "Tom Hanks"


@pytest.mark.slow
def test_existing_collections_are_reused(metaqa, metaqa_lite, monkeypatch):
    uri, first = metaqa_lite

    def no_rebuild(*args, **kwargs):
        raise AssertionError("an existing collection was rebuilt")

    monkeypatch.setattr(MilvusIndex, "build", no_rebuild)
    start = time.perf_counter()
    again = KGIndex.build(metaqa.kg, kind="milvus", milvus_uri=uri)
    assert time.perf_counter() - start < 10
    assert again.entity_index.collection == first.entity_index.collection
    assert again.nearest_entities("Forrest Gump", 1)[0].name == "Forrest Gump"


# ------------------------------------------------------------------------- small collections
def test_an_interrupted_build_resumes_where_it_stopped(tmp_path):
    """Vectors come in chunks of 250 (one insert each); the first build is stopped (Ctrl-C)
    while its fifth chunk is being made, and the next one asks only for what is missing."""
    milvus = connect(str(tmp_path / "resume.db"), timeout=20)
    vectors = unit_vectors(2_000, seed=5)
    asked: list[int] = []

    def interrupted(start: int):
        asked.append(start)
        for at in range(start, len(vectors), 250):
            if at == 1_000:
                raise KeyboardInterrupt
            yield vectors[at : at + 250]

    with pytest.raises(KeyboardInterrupt):
        MilvusIndex.build(interrupted, 2_000, 32, milvus, "kgviz_resume", "fp")
    assert MilvusIndex.open(milvus, "kgviz_resume", "fp", 2_000) is None  # not whole yet

    def rest(start: int):
        asked.append(start)
        return (vectors[at : at + 250] for at in range(start, 2_000, 250))

    index = MilvusIndex.build(rest, 2_000, 32, milvus, "kgviz_resume", "fp")
    assert asked == [0, 1_000] and len(index) == 2_000
    queries = vectors[::100] + 0.05 * unit_vectors(20, seed=6)
    assert_same_top_k(FaissIndex.build(vectors).search(queries, 5), index.search(queries, 5))
    other = MilvusIndex.build(rest, 2_000, 32, milvus, "kgviz_resume", "another fingerprint")
    assert asked[-1] == 0 and len(other) == 2_000  # a whole collection of another kind: anew


def test_rebuild_when_fingerprint_or_size_differs(tmp_path):
    milvus = connect(str(tmp_path / "small.db"), timeout=20)
    vectors = unit_vectors(300)
    MilvusIndex.from_vectors(vectors, milvus, "kgviz_test", "fingerprint a")
    assert MilvusIndex.open(milvus, "kgviz_test", "fingerprint a", 300) is not None
    assert MilvusIndex.open(milvus, "kgviz_test", "fingerprint b", 300) is None
    assert MilvusIndex.open(milvus, "kgviz_test", "fingerprint a", 301) is None
    assert MilvusIndex.open(milvus, "kgviz_absent", "fingerprint a", 300) is None

    other = unit_vectors(200, seed=1)
    MilvusIndex.from_vectors(other, milvus, "kgviz_test", "fingerprint b")
    assert MilvusIndex.open(milvus, "kgviz_test", "fingerprint a", 300) is None
    rebuilt = MilvusIndex.open(milvus, "kgviz_test", "fingerprint b", 200)
    assert rebuilt is not None and len(rebuilt) == 200
    queries = other[:5] + 0.05 * unit_vectors(5, seed=2)
    assert_same_top_k(FaissIndex.build(other).search(queries, 7), rebuilt.search(queries, 7))
    distances, ids = rebuilt.search(queries[0], 500)  # one query, k above the size: as faiss does
    assert distances.shape == ids.shape == (1, 200) and np.all(np.diff(distances[0]) >= 0)


def test_vectors_are_read_back_by_row_as_faiss_reads_them(tmp_path):
    """Over an endpoint, text features read the names' vectors from the index by row."""
    milvus = connect(str(tmp_path / "get.db"), timeout=20)
    vectors = unit_vectors(2_500, seed=7)
    index = MilvusIndex.from_vectors(vectors, milvus, "kgviz_get", "fingerprint")
    rows = np.array([2_499, 0, 1_234, 0, 7] + list(range(1_000, 2_100)))  # repeats, two requests
    assert np.array_equal(index.vectors_at(rows), vectors[rows])
    for kind in ("flat", "hnsw"):
        assert np.array_equal(FaissIndex.build(vectors, kind).vectors_at(rows), vectors[rows])
    with pytest.raises(KgvizError, match="has no row 2500"):
        index.vectors_at(np.array([3, 2_500]))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_server_uri_is_the_same_code_path(tmp_path):
    """A Milvus (Lite) server on a loopback port, reached by URI as a remote server would be."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # milvus-lite imports pkg_resources
        from milvus_lite.server import Server

    port = free_port()
    server = Server(str(tmp_path / "server.db"), f"127.0.0.1:{port}")
    assert server.init() and server.start()
    try:
        milvus = connect(f"http://127.0.0.1:{port}", timeout=20)
        vectors = unit_vectors(500, seed=3)
        index = MilvusIndex.from_vectors(vectors, milvus, "kgviz_server", "fingerprint")
        assert MilvusIndex.open(milvus, "kgviz_server", "fingerprint", 500) is not None
        queries = vectors[::50] + 0.05 * unit_vectors(10, seed=4)
        assert_same_top_k(FaissIndex.build(vectors).search(queries, 5), index.search(queries, 5))
    finally:
        server.stop()


# ------------------------------------------------------------------------- errors
def test_unreachable_server_is_a_clear_error():
    start = time.perf_counter()
    with pytest.raises(KgvizError, match=r"http://127\.0\.0\.1:1\b"):
        connect("http://127.0.0.1:1", timeout=2)
    assert time.perf_counter() - start < 10


def test_cli_index_build_names_the_unreachable_uri(capsys):
    code = main(
        ["index", "build", "demo", "--kind", "milvus", "--milvus-uri", "http://127.0.0.1:1"]
    )
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and "http://127.0.0.1:1" in err
    assert main(["index", "build", "demo", "--milvus-uri", "x.db"]) == 2
    assert "--kind milvus" in capsys.readouterr().err


def test_missing_pymilvus_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "pymilvus", None)
    with pytest.raises(KgvizError, match=r"kgviz\[milvus\]"):
        connect("http://127.0.0.1:19530")


# ------------------------------------------------------------------------- chosen by a session
def test_sessions_retrieve_the_same_through_milvus(tmp_cache, tmp_path, monkeypatch):
    """`KGVIZ_INDEX_KIND=milvus` routes a whole session's vector search through Milvus Lite."""
    from kgviz.errors import KgvizError
    from kgviz.session import open_session

    question = "who directed the films that [Tom Hanks] acted in"
    flat = open_session("demo", "local").reasoner("kaping").retrieve_only(question)
    monkeypatch.setenv("KGVIZ_INDEX_KIND", "milvus")
    monkeypatch.setenv("KGVIZ_MILVUS_URI", str(tmp_path / "demo.db"))
    session = open_session("demo", "local")
    assert session.context.index.entity_index.collection.startswith("kgviz_")
    assert session.reasoner("kaping").retrieve_only(question).evidence == flat.evidence
    monkeypatch.setenv("KGVIZ_INDEX_KIND", "annoy")
    with pytest.raises(KgvizError, match="unknown index kind 'annoy'"):
        open_session("demo", "local")
