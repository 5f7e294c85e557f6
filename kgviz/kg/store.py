"""The processed binary form of a KnowledgeGraph and a cache keyed by its source files."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kgviz.kg.graph import KnowledgeGraph
from kgviz.kg.vocab import Vocabulary
from kgviz.storage.atomic import write_atomic
from kgviz.storage.cache_repair import CorruptCache, load_or_build

FORMAT_VERSION = 2  # 2: control characters in names escaped (`Vocabulary.add`)


def save_graph(graph: KnowledgeGraph, path: Path) -> None:
    ent_blob, ent_offsets = graph.entities.to_arrays()
    rel_blob, rel_offsets = graph.relations.to_arrays()
    arrays: dict[str, Any] = {
        "format_version": np.array([FORMAT_VERSION]),
        "name": np.frombuffer(graph.name.encode("utf-8"), dtype=np.uint8),
        "entity_blob": ent_blob,
        "entity_offsets": ent_offsets,
        "relation_blob": rel_blob,
        "relation_offsets": rel_offsets,
        "triples": graph.triples,
    }
    write_atomic(path, lambda handle: np.savez(handle, **arrays))


def load_graph(path: Path) -> KnowledgeGraph:
    """The graph saved at `path`; `CorruptCache` unless its arrays have the saved shapes, types
    and bounds."""
    with np.load(path, allow_pickle=False) as data:
        version = int(data["format_version"][0])
        if version != FORMAT_VERSION:
            raise CorruptCache(f"processed graph format {version} is not {FORMAT_VERSION}")
        entities = checked_vocabulary(data["entity_blob"], data["entity_offsets"], "entity")
        relations = checked_vocabulary(data["relation_blob"], data["relation_offsets"], "relation")
        triples = data["triples"]
        if triples.dtype != np.int32 or triples.ndim != 2 or triples.shape[1] != 3:
            raise CorruptCache(f"triples of shape {triples.shape} and type {triples.dtype}")
        sizes = np.array([len(entities), len(relations), len(entities)])
        if len(triples) and ((triples < 0).any() or (triples.max(axis=0) >= sizes).any()):
            raise CorruptCache("a triple names an entity or relation the graph does not have")
        name = data["name"].tobytes().decode("utf-8")
        return KnowledgeGraph(entities, relations, triples, name=name)


def checked_vocabulary(blob: np.ndarray, offsets: np.ndarray, kind: str) -> Vocabulary:
    """A saved vocabulary, once its blob is bytes and its offsets rise from 0 to the blob's end."""
    if blob.dtype != np.uint8 or blob.ndim != 1 or offsets.dtype != np.int64 or offsets.ndim != 1:
        raise CorruptCache(f"{kind} names stored as {blob.dtype} bytes, {offsets.dtype} offsets")
    if not len(offsets) or offsets[0] != 0 or offsets[-1] != len(blob):
        raise CorruptCache(f"{kind} name offsets do not span the names")
    if (np.diff(offsets) < 0).any():
        raise CorruptCache(f"{kind} name offsets go backwards")
    return Vocabulary.from_arrays(blob, offsets, kind)


def source_fingerprint(files: Sequence[Path]) -> str:
    """A short key that changes when any source file's path, size or modification time does."""
    digest = hashlib.sha256(f"v{FORMAT_VERSION}".encode())
    for file in files:
        stat = file.stat()
        digest.update(f"{file.resolve()}|{stat.st_size}|{stat.st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


def cached_graph(cache_file: Path, build: Callable[[], KnowledgeGraph]) -> KnowledgeGraph:
    """Load `cache_file` if present, else build the graph and save it there atomically. An
    unreadable cache file (torn, truncated, another format) is set aside and rebuilt."""
    return load_or_build(cache_file, load_graph, build, save_graph)
