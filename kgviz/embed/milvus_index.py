"""Exact vector search in a Milvus collection: a Milvus Lite file (`*.db`) or a server by URI.

Optional backend (`pip install 'kgviz[milvus]'`); pymilvus is imported only when used. The
results match `FaissIndex` flat: exact (FLAT) L2 search, distances square-rooted.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kgviz.errors import StoreError

TOKEN_ENV = "KGVIZ_MILVUS_TOKEN"
INSERT_BATCH = 1000  # rows per insert; milvus-lite 2.5 slows down sharply on much larger requests
SEARCH_BATCH = 1024  # queries per search request


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
    def build(
        cls, vectors: np.ndarray, milvus: MilvusConnection, collection: str, fingerprint: str
    ) -> MilvusIndex:
        """(Re)create `collection` with a FLAT L2 index and insert `vectors` as ids 0..n-1."""
        from pymilvus import DataType

        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        client, timeout = milvus.client, milvus.timeout
        with milvus.errors(f"building collection {collection}"):
            if client.has_collection(collection, timeout=timeout):
                client.drop_collection(collection, timeout=timeout)
            schema = client.create_schema(
                auto_id=False, enable_dynamic_field=False, description=fingerprint
            )
            schema.add_field("id", DataType.INT64, is_primary=True)
            schema.add_field("vector", DataType.FLOAT_VECTOR, dim=vectors.shape[1])
            index_params = client.prepare_index_params()
            index_params.add_index("vector", index_type="FLAT", metric_type="L2")
            client.create_collection(
                collection,
                schema=schema,
                index_params=index_params,
                consistency_level="Strong",
                timeout=timeout,
            )
            for start in range(0, len(vectors), INSERT_BATCH):
                rows = [
                    {"id": i, "vector": vectors[i]}
                    for i in range(start, min(start + INSERT_BATCH, len(vectors)))
                ]
                client.insert(collection, rows, timeout=timeout)
            client.flush(collection, timeout=timeout)
            client.load_collection(collection, timeout=timeout)
        return cls(milvus, collection, len(vectors))

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

    def __len__(self) -> int:
        return self.size
