"""Entity and relation vector indexes of one KG, persisted per graph, encoder model and kind."""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kgviz.embed.cache import EmbeddingCache, cache_for, embed_with_cache
from kgviz.embed.encoder import TextEncoder, get_encoder
from kgviz.embed.index import FaissIndex, IndexKind, VectorIndex
from kgviz.embed.milvus_index import MilvusConnection, MilvusIndex, connect
from kgviz.kg.graph import KnowledgeGraph
from kgviz.paths import cache_name, cache_root
from kgviz.storage.cache_repair import CORRUPT, CorruptCache, set_aside


def relation_text(name: str) -> str:
    """Readable text of a relation label (the last segment of a dotted or IRI name).

    >>> relation_text("directed_by")
    'directed by'
    >>> relation_text("film.film.directed_by")
    'directed by'
    >>> relation_text("http://example.org/ontology/birthPlace")
    'birthPlace'
    """
    last = name.rsplit(".", 1)[-1] if "/" not in name else name.rstrip("/").rsplit("/", 1)[-1]
    return re.sub(r"[_\s]+", " ", last).strip() or name


def entity_name_vectors(kg: KnowledgeGraph, encoder: TextEncoder, progress: bool) -> np.ndarray:
    """The vectors of all of `kg`'s entity names (a KG in memory), through the cache."""
    names = list(kg.entities)
    cache = cache_for(encoder)
    return embed_with_cache(encoder, names, cache, progress=progress, desc=f"{kg.name} entities")


def relation_vectors(kg: KnowledgeGraph, encoder: TextEncoder) -> np.ndarray:
    """The vectors of `kg`'s readable relation labels (`relation_text`), through the cache."""
    texts = [relation_text(name) for name in kg.relations]
    return embed_with_cache(encoder, texts, cache_for(encoder))


def graph_fingerprint(kg: KnowledgeGraph) -> str:
    if kg.fingerprint is not None:  # a KG known by its store's key (its names are not all here)
        return kg.fingerprint
    digest = hashlib.blake2b(digest_size=8)
    for vocab in (kg.entities, kg.relations):
        blob, offsets = vocab.to_arrays()
        digest.update(blob.tobytes())
        digest.update(offsets.tobytes())
    return digest.hexdigest()


Embed = Callable[[str], np.ndarray]  # "entities" or "relations" -> their vectors
BUILD_CHUNK = 50_000  # names embedded and inserted at a time into a Milvus collection
# A KG's names go through the embedding cache, which holds its vectors in memory, up to this
# many; a bigger KG's (one behind an endpoint) are encoded a chunk at a time into its index.
CACHED_NAMES = 200_000


_caches: dict[tuple[str, Path], tuple[EmbeddingCache, threading.Lock]] = {}
_query_caches: dict[tuple[str, Path], EmbeddingCache] = {}
_caches_lock = threading.Lock()


def _shared_cache(encoder: TextEncoder, root: Path) -> tuple[EmbeddingCache, threading.Lock]:
    """One embedding cache per encoder model and cache root in a process (graphs built one per
    question then read the shards once), with the lock its users hold."""
    with _caches_lock:
        key = (encoder.model_name, root)
        if key not in _caches:
            _caches[key] = (cache_for(encoder), threading.Lock())  # under `root`, the cache root
        return _caches[key]


def _query_cache(encoder: TextEncoder, root: Path) -> EmbeddingCache:
    """The cache of query texts' vectors (questions, pattern phrases), apart from the KG names'
    so that adding a few does not rewrite the large one; one per model and root in a process."""
    with _caches_lock:
        key = (f"queries {encoder.model_name}", root)
        if key not in _query_caches:
            safe_model = re.sub(r"[^A-Za-z0-9_.-]+", "_", encoder.model_name)
            folder = root / "embeddings" / f"queries-{safe_model}"
            _query_caches[key] = EmbeddingCache(
                encoder.model_name, folder=folder, dim=lambda: encoder.dim
            )
        return _query_caches[key]


def _count(kg: KnowledgeGraph, which: str) -> int:
    """Rows of the graph's entity (all it stores) or relation index."""
    return kg.stored_entities if which == "entities" else kg.num_relations


def _texts(kg: KnowledgeGraph, which: str, start: int, stop: int) -> list[str]:
    """What is embedded for rows `start` to `stop` of the graph's entity index (names) or
    relation index (readable labels)."""
    if which == "entities":
        return kg.stored_entity_names(start, stop)
    return [relation_text(r) for r in kg.relations[start:stop]]


def _embed_texts(encoder: TextEncoder, texts: list[str], progress: bool, desc: str) -> np.ndarray:
    """`texts` embedded through the on-disk cache of the encoder's model."""
    cache, lock = _shared_cache(encoder, cache_root())
    with lock:
        return embed_with_cache(encoder, texts, cache, progress=progress, desc=desc)


def _vectors_from(
    kg: KnowledgeGraph, encoder: TextEncoder, which: str, start: int
) -> Iterator[np.ndarray]:
    """The index's vectors from row `start` on, a chunk of names at a time: through the
    embedding cache up to `CACHED_NAMES` names, else encoded straight (the cache would hold
    them all in memory)."""
    total = _count(kg, which)
    for at in range(start, total, BUILD_CHUNK):
        texts = _texts(kg, which, at, min(at + BUILD_CHUNK, total))
        if total <= CACHED_NAMES:
            yield _embed_texts(encoder, texts, False, "")
        else:
            yield encoder.encode(texts).astype(np.float32)


def _embedder(kg: KnowledgeGraph, encoder: TextEncoder, progress: bool) -> Embed:
    """Embeds the graph's entity names or readable relation labels (`_texts`)."""

    def embed(which: str) -> np.ndarray:
        total = _count(kg, which)
        if total > CACHED_NAMES:
            return np.concatenate(list(_vectors_from(kg, encoder, which, 0)))
        progressed = progress and which == "entities"
        texts = _texts(kg, which, 0, total)
        return _embed_texts(encoder, texts, progressed, f"{kg.name} {which}")

    return embed


def _load_indexes(
    kg: KnowledgeGraph, encoder: TextEncoder, entity_file: Path, relation_file: Path
) -> tuple[FaissIndex, FaissIndex] | None:
    """Both persisted indexes when they read and hold one vector of the encoder's dimension per
    name; an unreadable or wrong one is set aside (and both are rebuilt)."""
    loaded = []
    for path, count in ((entity_file, kg.stored_entities), (relation_file, kg.num_relations)):
        if not path.is_file():
            return None
        try:
            index = FaissIndex.load(path)
            if len(index) != count or index.dim != encoder.dim:
                raise CorruptCache(
                    f"{len(index)} vectors of dimension {index.dim} for {count} names "
                    f"(the encoder's dimension is {encoder.dim})"
                )
        except CORRUPT as error:
            set_aside(path, error)
            return None
        loaded.append(index)
    return loaded[0], loaded[1]


def _milvus_indexes(
    milvus: MilvusConnection, kg: KnowledgeGraph, encoder: TextEncoder, progress: bool
) -> tuple[MilvusIndex, MilvusIndex]:
    """The graph's entity and relation collections, reused when their fingerprint and size
    match, else built (or an interrupted build resumed) a chunk of names at a time
    (`_vectors_from`)."""
    graph = graph_fingerprint(kg)
    fingerprint = f"kgviz {kg.name} {graph} {encoder.model_name}"
    indexes = []
    for which in ("entities", "relations"):
        collection = f"kgviz_{graph}_{which}"

        def vectors_from(start: int, which: str = which) -> Iterator[np.ndarray]:
            return _vectors_from(kg, encoder, which, start)

        indexes.append(
            MilvusIndex.open(milvus, collection, fingerprint, _count(kg, which))
            or MilvusIndex.build(
                vectors_from,
                _count(kg, which),
                encoder.dim,
                milvus,
                collection,
                fingerprint,
                progress=progress and which == "entities",
            )
        )
    return indexes[0], indexes[1]


@dataclass
class Neighbour:
    """One index hit: a KG id, its name and its L2 distance to the query."""

    id: int
    name: str
    distance: float
    rank: int


class KGIndex:
    """Nearest KG entities and relations to a text, by L2 distance of normalised embeddings."""

    def __init__(
        self,
        kg: KnowledgeGraph,
        encoder: TextEncoder,
        entities: VectorIndex,
        relations: VectorIndex,
    ) -> None:
        self.kg = kg
        self.encoder = encoder
        self.entity_index = entities
        self.relation_index = relations

    @classmethod
    def build(
        cls,
        kg: KnowledgeGraph,
        encoder: TextEncoder | None = None,
        kind: IndexKind = "flat",
        progress: bool = False,
        folder: Path | None = None,
        milvus_uri: str | None = None,
        persist: bool = True,
    ) -> KGIndex:
        """Load the persisted indexes for this graph and encoder, or embed and build them
        (and save them unless `persist` is False: a small graph of one question).

        `kind="milvus"` keeps both in Milvus collections: on the server at `milvus_uri`, or by
        default in the Milvus Lite file `milvus.db` in the index folder.
        """
        encoder = encoder or get_encoder()
        safe_model = re.sub(r"[^A-Za-z0-9_.-]+", "_", encoder.model_name)
        folder = folder or (
            cache_root() / "indexes" / f"{cache_name(kg.name)}-{graph_fingerprint(kg)}" / safe_model
        )
        if kind == "milvus":
            milvus = connect(milvus_uri or str(folder / "milvus.db"))
            return cls(kg, encoder, *_milvus_indexes(milvus, kg, encoder, progress))
        embed = _embedder(kg, encoder, progress)
        if not persist:
            return cls(
                kg,
                encoder,
                FaissIndex.build(embed("entities"), kind),
                FaissIndex.build(embed("relations")),
            )
        entity_file, relation_file = (
            folder / f"entities-{kind}.faiss",
            folder / "relations-flat.faiss",
        )
        loaded = _load_indexes(kg, encoder, entity_file, relation_file)
        if loaded is not None:
            return cls(kg, encoder, *loaded)
        entities = FaissIndex.build(embed("entities"), kind)
        relations = FaissIndex.build(embed("relations"))
        entities.save(entity_file)
        relations.save(relation_file)
        return cls(kg, encoder, entities, relations)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Vectors of `texts`: from the embedding cache (every KG name embedded before by this
        encoder), else from the cache of query texts (the question and pattern texts asked
        before), the rest encoded and added to the query cache. A run whose texts are all cached
        loads no encoder."""
        if not texts:
            return np.zeros((0, self.encoder.dim), dtype=np.float32)
        names, lock = _shared_cache(self.encoder, cache_root())
        queries = _query_cache(self.encoder, cache_root())
        vectors: dict[int, np.ndarray] = {}
        with lock:
            for cache in (names, queries):
                todo = [i for i in range(len(texts)) if i not in vectors]
                found, missing = cache.lookup([texts[i] for i in todo]) if todo else (None, [])
                if found is not None:
                    absent = set(missing)
                    vectors.update((i, found[j]) for j, i in enumerate(todo) if j not in absent)
        todo = [i for i in range(len(texts)) if i not in vectors]
        if todo:
            encoded = self.encoder.encode([texts[i] for i in todo])
            with lock:
                queries.put([texts[i] for i in todo], encoded)
            vectors.update(zip(todo, encoded))
        return np.stack([vectors[i] for i in range(len(texts))]).astype(np.float32)

    def similarities(self, question: str, texts: list[str]) -> np.ndarray:
        """Cosine similarity of each of `texts` to `question` (the encoder's vectors are unit);
        the texts' vectors are read from, or added to, the encoder's embedding cache."""
        if not texts:
            return np.zeros(0, dtype=np.float32)
        cache, lock = _shared_cache(self.encoder, cache_root())
        with lock:
            vectors = embed_with_cache(self.encoder, texts, cache)
        return vectors @ self.embed([question])[0]

    def nearest_entities(self, text: str, k: int) -> list[Neighbour]:
        """Top-k entities; among equally distant ones an exact name match ranks first."""
        return self.nearest_entities_batch([text], k)[0]

    def entity_vectors(self, ids: np.ndarray) -> np.ndarray:
        """The name vectors of entities `ids`, as indexed (a KG behind an endpoint reads those of
        the entities its walks meet here, with no encoder)."""
        return self.entity_index.vectors_at(self.kg.stored_rows(ids))

    def nearest_relations(self, text: str, k: int) -> list[Neighbour]:
        return self.nearest_relations_batch([text], k)[0]

    def nearest_entities_batch(
        self, texts: list[str], k: int, vectors: np.ndarray | None = None
    ) -> list[list[Neighbour]]:
        """`nearest_entities` for many texts in one encoder call (or for given `vectors`)."""
        vectors = self.embed(texts) if vectors is None else vectors
        rows = self._nearest(self.entity_index, self.kg.entities, vectors, k, self.kg.entities_at)
        for text, hits in zip(texts, rows):
            hits.sort(key=lambda hit: (round(hit.distance, 5), hit.name != text))
        return [
            [Neighbour(h.id, h.name, h.distance, rank) for rank, h in enumerate(hits)]
            for hits in rows
        ]

    def nearest_relations_batch(
        self, texts: list[str], k: int, vectors: np.ndarray | None = None
    ) -> list[list[Neighbour]]:
        """Top-k relations for many texts (relation labels are embedded as readable text)."""
        vectors = self.embed([relation_text(t) for t in texts]) if vectors is None else vectors
        return self._nearest(self.relation_index, self.kg.relations, vectors, k)

    @staticmethod
    def _nearest(
        index: VectorIndex,
        names,
        queries: np.ndarray,
        k: int,
        ids_at: Callable[[np.ndarray], np.ndarray] | None = None,
    ) -> list[list[Neighbour]]:
        """The hits of `queries`; `ids_at` maps the index's rows to ids (entities of a KG behind
        an endpoint are met when hit)."""
        distances, rows = index.search(queries, k)
        ids, found = rows.copy(), rows >= 0
        if ids_at is not None:
            ids[found] = ids_at(rows[found])
        named = dict(zip(ids[found].tolist(), names.names_of(ids[found].tolist())))
        return [
            [
                Neighbour(int(i), named[int(i)], float(d), rank)
                for rank, (i, d) in enumerate(zip(row_ids, row_d))
                if i >= 0
            ]
            for row_ids, row_d in zip(ids, distances)
        ]
