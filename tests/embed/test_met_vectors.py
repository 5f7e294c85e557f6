"""Name vectors read from a KG's vector index as asked, and held within a bound."""

import numpy as np

from kgviz.datasets import get_dataset
from kgviz.embed import KGIndex, met_vectors
from kgviz.embed.met_vectors import MetVectors


def test_vectors_are_read_once_each_and_held_within_the_bound(tmp_cache, monkeypatch):
    kg = get_dataset("demo").kg
    index = KGIndex.build(kg)
    asked: list[int] = []

    def read(ids: np.ndarray) -> np.ndarray:
        asked.extend(ids.tolist())
        return index.entity_vectors(ids)

    vectors = MetVectors(kg, read, index.encoder.dim)
    ids = np.array([5, 3, 5, 9])
    expected = index.encoder.encode([kg.entities[i] for i in ids.tolist()])
    assert np.allclose(vectors[ids], expected, atol=1e-5)
    assert sorted(asked) == [3, 5, 9] and len(vectors) == 3  # each read once, repeats served
    assert np.array_equal(vectors[np.array([9, 3])], vectors[ids][[3, 1]]) and len(asked) == 3
    monkeypatch.setattr(met_vectors, "HELD", 4)
    vectors[np.array([3, 11])]  # one more fits
    assert len(asked) == 4 and len(vectors) == 4
    vectors[np.array([12, 13])]  # past the bound: what is held goes, these are read
    assert asked[-2:] == [12, 13] and len(vectors) == 2
    many = np.array([20, 21, 22, 23, 24, 20])  # more than may be held: read, and none held
    assert np.array_equal(vectors[many], index.entity_vectors(many)) and len(vectors) == 0
    assert vectors[np.zeros(0, np.int64)].shape == (0, index.encoder.dim)
