"""On-disk embedding cache keyed by (model, text), stored as atomically written shard files.

Each shard is checked as it is read: 16-byte keys, one float32 vector per key, all of the
encoder's dimension. A shard that fails is set aside and its texts are embedded again.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Callable
from pathlib import Path

import numpy as np

from kgviz.paths import cache_root
from kgviz.storage.atomic import write_atomic
from kgviz.storage.cache_repair import CORRUPT, CorruptCache, set_aside

MAX_SHARDS = 8
FLUSH_EVERY = 8192
KEPT = "the cache keeps the vectors it held"


def text_key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


def check_shard(keys: np.ndarray, vectors: np.ndarray, dim: int | None) -> None:
    """`CorruptCache` unless `keys` are (n, 16) bytes and `vectors` (n, dim) float32."""
    if keys.dtype != np.uint8 or keys.ndim != 2 or keys.shape[1] != 16:
        raise CorruptCache(f"keys of shape {keys.shape} and type {keys.dtype}, not (n, 16) uint8")
    if vectors.dtype != np.float32 or vectors.ndim != 2 or len(vectors) != len(keys):
        raise CorruptCache(
            f"{len(keys)} keys for vectors of shape {vectors.shape} and type {vectors.dtype}"
        )
    if dim is not None and vectors.shape[1] != dim:
        raise CorruptCache(f"vectors of dimension {vectors.shape[1]}, not the encoder's {dim}")


class EmbeddingCache:
    """Vectors of one encoder model; each `put` adds a shard, many shards are merged into one.

    `dim` gives the encoder's dimension when first needed (the model loads only then); without
    it, the first shard read sets the dimension the others must have.
    """

    def __init__(
        self, model_name: str, folder: Path | None = None, dim: Callable[[], int] | None = None
    ) -> None:
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", model_name).strip("_") or "model"
        self.folder = folder or cache_root() / "embeddings" / safe
        self._encoder_dim = dim
        self._dim: int | None = None
        self._rows: dict[bytes, int] = {}
        self._vectors: list[np.ndarray] = []
        self._loaded_shards: set[str] = set()

    def _shards(self) -> list[Path]:
        if self.folder.exists() and not self.folder.is_dir():
            set_aside(self.folder, NotADirectoryError("a file where the cache folder should be"))
        return sorted(self.folder.glob("shard-*.npz")) if self.folder.is_dir() else []

    def _read_shard(self, shard: Path) -> tuple[np.ndarray, np.ndarray]:
        with np.load(shard, allow_pickle=False) as data:
            keys, vectors = data["keys"], data["vectors"]
        check_shard(keys, vectors, self._dim)
        self._dim = vectors.shape[1]
        return keys, vectors

    def _refresh(self) -> None:
        """Load the shards not loaded yet, setting aside one that fails `check_shard`. The
        encoder's dimension is asked for first: a model that fails to load is its own error,
        not a reason to set shards aside."""
        new = [shard for shard in self._shards() if shard.name not in self._loaded_shards]
        if new and self._dim is None and self._encoder_dim is not None:
            self._dim = self._encoder_dim()
        for shard in new:
            try:
                keys, vectors = self._read_shard(shard)
            except FileNotFoundError:
                continue  # removed by a concurrent merge
            except CORRUPT as error:
                set_aside(shard, error)  # its texts are embedded again when asked for
                continue
            self._loaded_shards.add(shard.name)
            base = sum(len(v) for v in self._vectors)
            self._vectors.append(vectors)
            for offset, key in enumerate(keys):
                self._rows.setdefault(key.tobytes(), base + offset)

    def _gather(self, rows: list[int]) -> np.ndarray:
        """The vectors at these rows (numbered across the loaded shards in order), copied from
        their shards: no shard is copied whole."""
        starts = np.cumsum([0] + [len(v) for v in self._vectors])
        wanted = np.asarray(rows, dtype=np.int64)
        shard_of = np.searchsorted(starts, wanted, side="right") - 1
        out = np.empty((len(wanted), self._vectors[0].shape[1]), dtype=np.float32)
        for shard in np.unique(shard_of):
            here = shard_of == shard
            out[here] = self._vectors[shard][wanted[here] - starts[shard]]
        return out

    def lookup(self, texts: list[str]) -> tuple[np.ndarray | None, list[int]]:
        """Cached vectors for `texts` (rows of missing ones left zero) and the missing positions."""
        self._refresh()
        keys = [text_key(t) for t in texts]
        rows = [self._rows.get(k) for k in keys]
        missing = [i for i, row in enumerate(rows) if row is None]
        if not self._vectors:
            return None, missing
        out = np.zeros((len(texts), self._vectors[0].shape[1]), dtype=np.float32)
        present = [(i, row) for i, row in enumerate(rows) if row is not None]
        if present:
            out[[i for i, _ in present]] = self._gather([row for _, row in present])
        return out, missing

    def put(self, texts: list[str], vectors: np.ndarray) -> None:
        """Persist `vectors` for `texts` as a new shard (atomic), merging shards when many."""
        if not texts:
            return
        keys = np.frombuffer(b"".join(text_key(t) for t in texts), dtype=np.uint8).reshape(-1, 16)
        self._write_shard(keys, np.asarray(vectors, dtype=np.float32))
        self._refresh()
        if len(self._loaded_shards) > MAX_SHARDS:
            self._merge()

    def _write_shard(self, keys: np.ndarray, vectors: np.ndarray) -> Path:
        path = self.folder / f"shard-{uuid.uuid4().hex}.npz"
        write_atomic(path, lambda handle: np.savez(handle, keys=keys, vectors=vectors), KEPT)
        return path

    def _merge(self) -> None:
        old = self._shards()
        items = sorted(self._rows.items(), key=lambda item: item[1])
        keys = np.frombuffer(b"".join(k for k, _ in items), dtype=np.uint8).reshape(-1, 16)
        merged = self._write_shard(keys, self._gather([row for _, row in items]))
        for shard in old:
            if shard != merged:
                shard.unlink(missing_ok=True)
        self._rows, self._vectors, self._loaded_shards = {}, [], set()
        self._refresh()


def embed_with_cache(
    encoder,
    texts: list[str],
    cache: EmbeddingCache | None = None,
    batch_size: int = 512,
    progress: bool = False,
    desc: str = "embedding",
) -> np.ndarray:
    """Embed `texts`, reading what the cache has and encoding (in batches) only the rest."""
    cache = cache or cache_for(encoder)
    found, missing = cache.lookup(texts)
    if found is not None and not missing:
        return found
    if not texts:
        return np.zeros((0, encoder.dim), dtype=np.float32)
    todo = [texts[i] for i in missing]
    chunks = range(0, len(todo), batch_size)
    if progress:
        from tqdm.auto import tqdm

        chunks = tqdm(chunks, desc=desc, unit="batch", total=len(chunks))
    encoded: list[np.ndarray] = []
    stored_parts = stored_texts = 0
    for start in chunks:
        batch = todo[start : start + batch_size]
        encoded.append(encoder.encode(batch, batch_size=min(batch_size, 256)))
        end = start + len(batch)
        if end - stored_texts >= FLUSH_EVERY or end == len(todo):  # bounded loss if interrupted
            cache.put(todo[stored_texts:end], np.concatenate(encoded[stored_parts:]))
            stored_parts, stored_texts = len(encoded), end
    vectors = np.concatenate(encoded)
    result = np.zeros((len(texts), vectors.shape[1]), np.float32) if found is None else found
    result[missing] = vectors
    return result


def cache_for(encoder) -> EmbeddingCache:
    """The embedding cache of `encoder`'s model, holding vectors of its dimension."""
    return EmbeddingCache(encoder.model_name, dim=lambda: encoder.dim)
