"""On-disk embedding cache keyed by (model, text), stored as atomically written shard files."""

from __future__ import annotations

import hashlib
import re
import uuid
from pathlib import Path

import numpy as np

from kgviz.atomic import write_atomic
from kgviz.cache_repair import CORRUPT, CorruptCache, set_aside
from kgviz.paths import cache_root

MAX_SHARDS = 8
FLUSH_EVERY = 8192


def text_key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


class EmbeddingCache:
    """Vectors of one encoder model; each `put` adds a shard, many shards are merged into one."""

    def __init__(self, model_name: str, folder: Path | None = None) -> None:
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", model_name).strip("_") or "model"
        self.folder = folder or cache_root() / "embeddings" / safe
        self._rows: dict[bytes, int] = {}
        self._vectors: list[np.ndarray] = []
        self._loaded_shards: set[str] = set()

    def _shards(self) -> list[Path]:
        return sorted(self.folder.glob("shard-*.npz")) if self.folder.is_dir() else []

    def _refresh(self) -> None:
        for shard in self._shards():
            if shard.name in self._loaded_shards:
                continue
            try:
                with np.load(shard, allow_pickle=False) as data:
                    keys, vectors = data["keys"], data["vectors"]
                if len(keys) != len(vectors) or vectors.ndim != 2:
                    raise CorruptCache(f"{len(keys)} keys for {len(vectors)} vectors")
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

    def _matrix(self) -> np.ndarray:
        if len(self._vectors) > 1:
            self._vectors = [np.concatenate(self._vectors)]
        return self._vectors[0]

    def lookup(self, texts: list[str]) -> tuple[np.ndarray | None, list[int]]:
        """Cached vectors for `texts` (rows of missing ones left zero) and the missing positions."""
        self._refresh()
        keys = [text_key(t) for t in texts]
        rows = [self._rows.get(k) for k in keys]
        missing = [i for i, row in enumerate(rows) if row is None]
        if not self._vectors:
            return None, missing
        matrix = self._matrix()
        out = np.zeros((len(texts), matrix.shape[1]), dtype=np.float32)
        present = [(i, row) for i, row in enumerate(rows) if row is not None]
        if present:
            out[[i for i, _ in present]] = matrix[[row for _, row in present]]
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
        write_atomic(path, lambda handle: np.savez(handle, keys=keys, vectors=vectors))
        return path

    def _merge(self) -> None:
        old = self._shards()
        items = sorted(self._rows.items(), key=lambda item: item[1])
        keys = np.frombuffer(b"".join(k for k, _ in items), dtype=np.uint8).reshape(-1, 16)
        merged = self._write_shard(keys, self._matrix()[[row for _, row in items]])
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
    cache = cache or EmbeddingCache(encoder.model_name)
    found, missing = cache.lookup(texts)
    if not missing and found is not None:
        return found
    todo = [texts[i] for i in missing]
    chunks = range(0, len(todo), batch_size)
    if progress:
        from tqdm.auto import tqdm

        chunks = tqdm(chunks, desc=desc, unit="batch", total=len(chunks))
    pending_texts: list[str] = []
    pending_vectors: list[np.ndarray] = []
    for start in chunks:
        batch = todo[start : start + batch_size]
        pending_texts.extend(batch)
        pending_vectors.append(encoder.encode(batch, batch_size=min(batch_size, 256)))
        if len(pending_texts) >= FLUSH_EVERY:  # bounded loss if interrupted, few shard files
            cache.put(pending_texts, np.concatenate(pending_vectors))
            pending_texts, pending_vectors = [], []
    if pending_texts:
        cache.put(pending_texts, np.concatenate(pending_vectors))
    result, still_missing = cache.lookup(texts)
    if still_missing or result is None:
        raise RuntimeError(f"embedding cache lost {len(still_missing)} vectors just written")
    return result
