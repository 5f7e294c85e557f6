"""Embedding cache and vector indexes, with the real offline encoder."""

import random
import subprocess
import sys

import numpy as np
import pytest

from kgviz.datasets import get_dataset
from kgviz.embed import (
    EmbeddingCache,
    FaissIndex,
    KGIndex,
    SentenceEncoder,
    embed_with_cache,
    get_encoder,
    relation_text,
)
from kgviz.embed import cache as cache_module


class CountingEncoder:
    """The real encoder, counting how many texts it was asked to encode."""

    def __init__(self):
        self.inner = get_encoder()
        self.model_name = self.inner.model_name
        self.encoded = 0

    @property
    def dim(self):
        return self.inner.dim

    def encode(self, texts, batch_size=256):
        self.encoded += len(texts)
        return self.inner.encode(texts, batch_size)


def test_vectors_are_normalised_and_semantic():
    vectors = get_encoder().encode(["film director", "directed by", "banana bread recipe"])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]


def test_cache_roundtrip_and_reuse(tmp_path):
    encoder = CountingEncoder()
    texts = ["Tom Hanks", "Forrest Gump", "tom hanks", "Tom Hanks"]
    first = embed_with_cache(encoder, texts, EmbeddingCache("m", tmp_path))
    assert encoder.encoded == 4
    again = embed_with_cache(
        encoder, texts[::-1], EmbeddingCache("m", tmp_path)
    )  # new process view
    assert encoder.encoded == 4
    assert np.array_equal(again, first[::-1])
    assert not list(tmp_path.glob("*.tmp"))


def test_cache_merges_many_shards(tmp_path, monkeypatch):
    monkeypatch.setattr(cache_module, "MAX_SHARDS", 3)
    cache = EmbeddingCache("m", tmp_path)
    rng = np.random.default_rng(0)
    written = {}
    for i in range(7):
        vector = rng.standard_normal((1, 4)).astype(np.float32)
        cache.put([f"text {i}"], vector)
        written[f"text {i}"] = vector[0]
    assert len(list(tmp_path.glob("shard-*.npz"))) <= 4
    found, missing = EmbeddingCache("m", tmp_path).lookup(list(written) + ["absent"])
    assert missing == [7]
    assert np.array_equal(found[:7], np.stack(list(written.values())))


def test_lookup_reads_rows_from_every_shard(tmp_path):
    rng = np.random.default_rng(2)
    written = {}
    for shard in range(4):
        texts = [f"text {shard}.{i}" for i in range(3)]
        vectors = rng.standard_normal((3, 4)).astype(np.float32)
        EmbeddingCache("m", tmp_path).put(texts, vectors)
        written.update(zip(texts, vectors))
    asked = random.Random(0).sample(list(written), len(written)) + ["absent"]
    cache = EmbeddingCache("m", tmp_path)
    found, missing = cache.lookup(asked)
    assert missing == [len(asked) - 1] and not found[-1].any()
    assert np.array_equal(found[:-1], np.stack([written[t] for t in asked[:-1]]))
    assert len(cache._vectors) == 4  # each shard as read: none is copied into one matrix


def test_relation_text():
    assert relation_text("directed_by") == "directed by"
    assert relation_text("people.person.place_of_birth") == "place of birth"
    assert relation_text("plays_in_club_inverse") == "plays in club inverse"


def test_demo_index_finds_every_exact_name_first(tmp_cache):
    kg = get_dataset("demo").kg
    index = KGIndex.build(kg)
    for name in kg.entities:
        hits = index.nearest_entities(name, 3)
        assert hits[0].name == name and hits[0].distance < 1e-3, (name, hits)
    assert index.nearest_relations("who directed", 1)[0].name == "directed_by"
    assert any((tmp_cache / "indexes").rglob("entities-flat.faiss"))
    reloaded = KGIndex.build(kg)  # from the persisted files
    assert reloaded.nearest_entities("Tom Hanks", 1)[0].name == "Tom Hanks"


def test_hnsw_agrees_with_flat():
    rng = np.random.default_rng(1)
    data = rng.standard_normal((2000, 32)).astype(np.float32)
    data /= np.linalg.norm(data, axis=1, keepdims=True)
    flat, hnsw = FaissIndex.build(data, "flat"), FaissIndex.build(data, "hnsw")
    queries = data[:100] + 0.01 * rng.standard_normal((100, 32)).astype(np.float32)
    flat_d, flat_i = flat.search(queries, 5)
    _, hnsw_i = hnsw.search(queries, 5)
    assert np.array_equal(flat_i[:, 0], np.arange(100))
    assert (hnsw_i[:, 0] == flat_i[:, 0]).mean() > 0.95
    assert np.all(np.diff(flat_d, axis=1) >= 0)


@pytest.mark.slow
def test_metaqa_index_exact_names(shared_data):
    """Builds (or loads from the user cache) the MetaQA entity index: ~2 minutes the first time."""
    kg = get_dataset("metaqa-1hop", root=shared_data).kg
    index = KGIndex.build(kg, progress=True)
    assert len(index.entity_index) == 43_234 and len(index.relation_index) == 9
    names = random.Random(0).sample(list(kg.entities), 40) + ["Tom Hanks", "tom hanks", "1994"]
    for name in names:
        assert index.nearest_entities(name, 5)[0].name == name
    assert index.nearest_relations("director", 1)[0].name == "directed_by"


def test_a_cached_lookup_in_a_new_process_loads_no_encoder(tmp_cache):
    """Index, names and query texts all cached: a new process reads them without torch."""
    kg = get_dataset("demo").kg
    encoder = SentenceEncoder()  # its dimension is first asked for under this cache
    expected = KGIndex.build(kg, encoder).nearest_entities("the actor Tom Hanks", 2)
    code = (
        "import sys; from kgviz.datasets import get_dataset; from kgviz.embed import KGIndex; "
        "hits = KGIndex.build(get_dataset('demo').kg).nearest_entities('the actor Tom Hanks', 2); "
        "print([(h.name, round(h.distance, 5)) for h in hits]); "
        "print(sorted({'torch', 'sentence_transformers'} & set(sys.modules)))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stderr
    hits, imported = result.stdout.splitlines()
    assert hits == str([(h.name, round(h.distance, 5)) for h in expected])
    assert imported == "[]"
