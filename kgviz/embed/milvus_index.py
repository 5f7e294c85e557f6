"""Exact vector search in a Milvus collection: a Milvus Lite file (`*.db`) or a server by URI.

Optional backend (`pip install 'kgviz[milvus]'`); pymilvus is imported only when used. The
results match `FaissIndex` flat: exact (FLAT) L2 search, distances square-rooted.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kgviz.errors import StoreError

TOKEN_ENV = "KGVIZ_MILVUS_TOKEN"
INSERT_BATCH = 1000  # rows per insert; milvus-lite 2.5 slows down sharply on much larger requests
GET_BATCH = 1_000  # ids read per request; milvus-lite 2.5 took 50x longer at 5,000 a request
SEARCH_BATCH = 1024  # queries per search request
VectorsFrom = Callable[[int], Iterable[np.ndarray]]  # row -> the vectors from it on, in chunks


@dataclass
class MilvusConnection:
    """A `pymilvus.MilvusClient`, the URI it talks to and the timeout of each request."""

    client: Any
    uri: str
    timeout: float

    @contextmanager
    def errors(self, doing: str) -> Iterator[None]:
        """Re-raise a failed Milvus request as a `KgvizError` naming the URI and `doing`."""
        from pymilvus import MilvusException

        try:
            yield
        except MilvusException as error:
            raise StoreError(f"Milvus at {self.uri}: {doing} failed: {error.message}") from error


def _progress(shown: bool, collection: str, rows: int, done: int) -> Any:
    """A progress bar over the rows of a build (None unless `shown`)."""
    if not shown:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=rows, initial=done, desc=f"Milvus {collection}", unit="vectors")


def connect(uri: str, token: str | None = None, timeout: float = 10.0) -> MilvusConnection:
    """Connect to `uri`: a Milvus Lite file (a path ending in `.db`) or a server (`http://host:19530`).

    `token` (default `KGVIZ_MILVUS_TOKEN`) authenticates on a server; `timeout` bounds the
    connection and every later request. Missing packages and unreachable servers are a
    `KgvizError` naming the URI.
    """
    local = uri.endswith(".db")
    try:
        with warnings.catch_warnings():  # milvus-lite 2.5 imports the deprecated pkg_resources
            warnings.filterwarnings("ignore", "pkg_resources is deprecated", UserWarning)
            from pymilvus import MilvusClient, MilvusException

            if local:
                import milvus_lite  # noqa: F401
    except ImportError as error:
        raise StoreError(
            f"the Milvus index needs pymilvus and milvus-lite ({error}): "
            "pip install 'kgviz[milvus]'"
        ) from error
    if local:
        uri = str(Path(uri).expanduser().resolve())
        Path(uri).parent.mkdir(parents=True, exist_ok=True)
    token = token or os.environ.get(TOKEN_ENV, "")
    try:
        client = MilvusClient(uri=uri, token=token, timeout=timeout)
    except (MilvusException, RuntimeError) as error:  # RuntimeError: a bad Milvus Lite file name
        hint = " (a Milvus Lite file can be open in one process at a time)" if local else ""
        raise StoreError(
            f"cannot reach Milvus at {uri} (timeout {timeout:g} s): "
            f"{getattr(error, 'message', error)}{hint}"
        ) from error
    return MilvusConnection(client, uri, timeout)


class MilvusIndex:
    """One collection of `(id, vector)` rows searched exactly by L2, like `FaissIndex` flat.

    The collection's description holds a fingerprint of what was indexed, so a later `open`
    reuses it only when the fingerprint and the row count still match.
    """

    def __init__(self, milvus: MilvusConnection, collection: str, size: int) -> None:
        self.milvus = milvus
        self.collection = collection
        self.size = size

    @classmethod
    def open(
        cls, milvus: MilvusConnection, collection: str, fingerprint: str, rows: int
    ) -> MilvusIndex | None:
        """The existing collection if it holds `rows` rows with this fingerprint, else None."""
        client, timeout = milvus.client, milvus.timeout
        with milvus.errors(f"reading collection {collection}"):
            if not client.has_collection(collection, timeout=timeout):
                return None
            description = client.describe_collection(collection, timeout=timeout).get("description")
            count = int(client.get_collection_stats(collection, timeout=timeout)["row_count"])
            if description != fingerprint or count != rows:
                return None
            client.load_collection(collection, timeout=timeout)
        return cls(milvus, collection, rows)

    @classmethod
    def from_vectors(
        cls, vectors: np.ndarray, milvus: MilvusConnection, collection: str, fingerprint: str
    ) -> MilvusIndex:
        """`build` from vectors already in memory."""

        def vectors_from(start: int) -> Iterator[np.ndarray]:
            for at in range(start, len(vectors), 10 * INSERT_BATCH):
                yield vectors[at : at + 10 * INSERT_BATCH]

        return cls.build(
            vectors_from, len(vectors), vectors.shape[1], milvus, collection, fingerprint
        )

    @classmethod
    def build(
        cls,
        vectors_from: VectorsFrom,
        rows: int,
        dim: int,
        milvus: MilvusConnection,
        collection: str,
        fingerprint: str,
        progress: bool = False,
    ) -> MilvusIndex:
        """A collection of `rows` vectors of `dim` with a FLAT L2 index, ids 0..rows-1, inserted as
        `vectors_from(start)` yields them from row `start` on, in chunks (the build holds one
        chunk at a time). A collection of this fingerprint and dimension left part-built by an
        interrupted build is resumed where it stopped; any other is dropped and built anew."""
        client, timeout = milvus.client, milvus.timeout
        with milvus.errors(f"building collection {collection}"):
            done = cls._resumable(milvus, collection, fingerprint, rows, dim)
            if done == 0:
                cls._create(milvus, collection, fingerprint, dim)
            bar = _progress(progress, collection, rows, done)
            try:
                for chunk in vectors_from(done):
                    done = cls._insert(milvus, collection, chunk, done, bar)
            finally:
                if bar is not None:
                    bar.close()
            client.flush(collection, timeout=timeout)
            count = int(client.get_collection_stats(collection, timeout=timeout)["row_count"])
            if count != rows:
                raise StoreError(
                    f"Milvus at {milvus.uri}: collection {collection} holds {count:,} rows after "
                    f"its build, not {rows:,}; build it again"
                )
            client.load_collection(collection, timeout=timeout)
        return cls(milvus, collection, rows)

    @staticmethod
    def _insert(
        milvus: MilvusConnection, collection: str, chunk: np.ndarray, first: int, bar: Any
    ) -> int:
        """Insert `chunk` as ids `first`, `first + 1`, ...; the id after its last."""
        chunk = np.ascontiguousarray(chunk, dtype=np.float32)
        for start in range(0, len(chunk), INSERT_BATCH):
            part = chunk[start : start + INSERT_BATCH]
            rows = [{"id": first + i, "vector": vector} for i, vector in enumerate(part)]
            milvus.client.insert(collection, rows, timeout=milvus.timeout)
            first += len(part)
            if bar is not None:
                bar.update(len(part))
        return first

    @staticmethod
    def _resumable(
        milvus: MilvusConnection, collection: str, fingerprint: str, rows: int, dim: int
    ) -> int:
        """The rows an interrupted build of this fingerprint and dimension left, once they are
        checked to be ids 0..n-1 (each insert is whole); 0 after dropping any other collection
        of that name."""
        client, timeout = milvus.client, milvus.timeout
        if not client.has_collection(collection, timeout=timeout):
            return 0
        described = client.describe_collection(collection, timeout=timeout)
        dims = [f.get("params", {}).get("dim") for f in described.get("fields", [])]
        client.flush(collection, timeout=timeout)  # rows inserted before the stop are counted
        count = int(client.get_collection_stats(collection, timeout=timeout)["row_count"])
        if described.get("description") == fingerprint and dim in dims and 0 < count < rows:
            client.load_collection(collection, timeout=timeout)
            beyond = client.query(collection, filter=f"id >= {count}", limit=1, timeout=timeout)
            client.release_collection(collection, timeout=timeout)
            if not beyond:
                return count
        client.drop_collection(collection, timeout=timeout)
        return 0

    @staticmethod
    def _create(milvus: MilvusConnection, collection: str, fingerprint: str, dim: int) -> None:
        """An empty collection of `(id, vector)` rows with a FLAT L2 index on the vectors."""
        from pymilvus import DataType

        client = milvus.client
        schema = client.create_schema(
            auto_id=False, enable_dynamic_field=False, description=fingerprint
        )
        schema.add_field("id", DataType.INT64, is_primary=True)
        schema.add_field("vector", DataType.FLOAT_VECTOR, dim=dim)
        index_params = client.prepare_index_params()
        index_params.add_index("vector", index_type="FLAT", metric_type="L2")
        client.create_collection(
            collection,
            schema=schema,
            index_params=index_params,
            consistency_level="Strong",
            timeout=milvus.timeout,
        )

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """`(distances, ids)`, each `(len(queries), k)`, nearest first; id -1 pads short rows."""
        queries = np.ascontiguousarray(np.atleast_2d(queries), dtype=np.float32)
        k = max(1, min(k, len(self)))
        squared = np.full((len(queries), k), np.inf, dtype=np.float32)
        ids = np.full((len(queries), k), -1, dtype=np.int64)
        with self.milvus.errors(f"searching collection {self.collection}"):
            for start in range(0, len(queries), SEARCH_BATCH):
                found = self.milvus.client.search(
                    self.collection,
                    list(queries[start : start + SEARCH_BATCH]),
                    limit=k,
                    search_params={"metric_type": "L2"},
                    timeout=self.milvus.timeout,
                )
                for row, hits in enumerate(found, start):
                    for rank, hit in enumerate(hits):
                        ids[row, rank] = hit["id"]
                        squared[row, rank] = hit["distance"]  # Milvus' L2 is the squared distance
        return np.sqrt(np.maximum(squared, 0.0)), ids

    def vectors_at(self, rows: np.ndarray) -> np.ndarray:
        """The vectors of ids `rows`, read `GET_BATCH` at a time."""
        rows = np.asarray(rows, dtype=np.int64)
        found: dict[int, list[float]] = {}
        with self.milvus.errors(f"reading vectors of collection {self.collection}"):
            for start in range(0, len(rows), GET_BATCH):
                ids = np.unique(rows[start : start + GET_BATCH]).tolist()
                got = self.milvus.client.get(
                    self.collection, ids=ids, output_fields=["vector"], timeout=self.milvus.timeout
                )
                found.update((int(row["id"]), row["vector"]) for row in got)
        if missing := [row for row in rows.tolist() if row not in found]:
            raise StoreError(
                f"Milvus at {self.milvus.uri}: collection {self.collection} has no row {missing[0]}"
            )
        return np.array([found[row] for row in rows.tolist()], dtype=np.float32)

    def __len__(self) -> int:
        return self.size
