"""Vector indexes over L2-normalised vectors: faiss exact (flat) by default, HNSW as an option.

Milvus (`kgviz.embed.milvus_index`) is the optional third kind.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import IO, Any, Literal, Protocol

import numpy as np

from kgviz.storage.atomic import write_atomic

FaissKind = Literal["flat", "hnsw"]
IndexKind = Literal["flat", "hnsw", "milvus"]  # milvus: see kgviz.embed.milvus_index
# Up to this many queries are searched on one thread: for a single query, starting and syncing
# OpenMP threads costs more than it saves (3 ms instead of 46 ms per SimGRAG pools stage on a
# busy 2-core machine, bench/bench_pools.py).
ONE_THREAD_QUERIES = 16
_THREADS = threading.Lock()  # faiss' thread count is process-wide: one small search at a time


class VectorIndex(Protocol):
    """Top-k nearest neighbours by Euclidean (L2) distance."""

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """`(distances, ids)`, each `(len(queries), k)`, nearest first; id -1 pads short rows."""
        ...

    def vectors_at(self, rows: np.ndarray) -> np.ndarray:
        """The vectors held at `rows` (one or more), `(len(rows), dim)` float32."""
        ...

    def __len__(self) -> int: ...


class FaissIndex:
    """A faiss index; distances returned are L2 (faiss' squared L2, square-rooted)."""

    def __init__(self, index) -> None:
        self.index = index

    @classmethod
    def build(cls, vectors: np.ndarray, kind: FaissKind = "flat", hnsw_m: int = 32) -> FaissIndex:
        import faiss

        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        dim = vectors.shape[1]
        index: Any
        if kind == "flat":
            index = faiss.IndexFlatL2(dim)
        elif kind == "hnsw":
            index = faiss.IndexHNSWFlat(dim, hnsw_m)
            index.hnsw.efConstruction = 80
            index.hnsw.efSearch = 128
        else:
            raise ValueError(f"unknown index kind {kind!r} (flat or hnsw)")
        index.add(vectors)
        return cls(index)

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        queries = np.ascontiguousarray(np.atleast_2d(queries), dtype=np.float32)
        k = max(1, min(k, len(self)))
        if len(queries) > ONE_THREAD_QUERIES:
            squared, ids = self.index.search(queries, k)
        else:
            import faiss

            with _THREADS:
                threads = faiss.omp_get_max_threads()
                faiss.omp_set_num_threads(1)
                try:
                    squared, ids = self.index.search(queries, k)
                finally:
                    faiss.omp_set_num_threads(threads)
        return np.sqrt(np.maximum(squared, 0.0)), ids

    def vectors_at(self, rows: np.ndarray) -> np.ndarray:
        return self.index.reconstruct_batch(np.asarray(rows, dtype=np.int64))

    def __len__(self) -> int:
        return int(self.index.ntotal)

    @property
    def dim(self) -> int:
        return int(self.index.d)

    def save(self, path: Path) -> None:
        """Write the index atomically, through Python file writes (so that a failed write is an
        `OSError`, hence a one-line `WriteError`, not a faiss exception)."""
        import faiss

        untyped: Any = faiss  # its stubs know no PyCallbackIOWriter, nor write_index to one

        def write(handle: IO[bytes]) -> None:
            untyped.write_index(self.index, untyped.PyCallbackIOWriter(handle.write))

        write_atomic(path, write)

    @classmethod
    def load(cls, path: Path) -> FaissIndex:
        import faiss

        return cls(faiss.read_index(str(path)))


def set_search_threads(threads: int) -> None:
    """faiss OpenMP threads (1 is fastest for single interactive queries on small machines)."""
    import faiss

    faiss.omp_set_num_threads(threads)
