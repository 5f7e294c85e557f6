"""Name vectors of the entities a KG behind an endpoint has met, read from its vector index (no
encoder) as methods ask for them, and held by id until the KG renumbers its entities (a new
`generation`); at most `HELD` are held (beyond, those held go and are read anew as asked)."""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

from kgviz.kg.graph import KnowledgeGraph

HELD = 100_000  # vectors held at most (150 MB at 384 dimensions)


class MetVectors:
    """`vectors[ids]`: the vectors of entities `ids`, `read(ids)` for those not held."""

    def __init__(
        self, kg: KnowledgeGraph, read: Callable[[np.ndarray], np.ndarray], dim: int
    ) -> None:
        self.kg, self._read, self.dim = kg, read, dim
        self._lock = threading.Lock()
        self._clear()

    def _clear(self) -> None:
        self._generation = self.kg.generation
        self._slot = np.zeros(0, dtype=np.int64)  # each id's row in `_vectors`, -1 if not held
        self._vectors = np.zeros((0, self.dim), dtype=np.float32)  # rows past `_held`: spare
        self._held = 0

    def __len__(self) -> int:
        """How many vectors are held."""
        return self._held

    def __getitem__(self, ids: np.ndarray) -> np.ndarray:
        ids = np.asarray(ids, dtype=np.int64)
        with self._lock:
            if self.kg.generation != self._generation:
                self._clear()
            missing = self._missing(ids)
            if self._held + missing.size > HELD:
                self._clear()
                missing = self._missing(ids)
            if missing.size > HELD:  # more than may be held: read, and hold none
                distinct, where = np.unique(ids, return_inverse=True)
                return self._read(distinct)[where]
            if missing.size:
                self._hold(missing, self._read(missing))
            return self._vectors[self._slot[ids]]

    def _missing(self, ids: np.ndarray) -> np.ndarray:
        """The distinct `ids` not held (the slot table grown to the KG's entities first, to twice
        its size at least, so that growing it costs a copy now and then)."""
        count = self.kg.num_entities
        if len(self._slot) < count:
            grown = np.full(max(count, 2 * len(self._slot)), -1, dtype=np.int64)
            grown[: len(self._slot)] = self._slot
            self._slot = grown
        return np.unique(ids[self._slot[ids] < 0])

    def _hold(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        need = self._held + len(ids)
        if need > len(self._vectors):  # room for twice as many, within the bound
            grown = np.zeros((max(need, min(2 * self._held, HELD)), self.dim), dtype=np.float32)
            grown[: self._held] = self._vectors[: self._held]
            self._vectors = grown
        self._vectors[self._held : need] = vectors
        self._slot[ids] = np.arange(self._held, need)
        self._held = need


def required(vectors: MetVectors | None) -> MetVectors:
    """`vectors`, which a KG behind an endpoint must have (it has no table of all its names')."""
    if vectors is None:
        raise ValueError("a KG behind an endpoint reads its names' vectors from its vector index")
    return vectors
