"""The processed binary form of a KnowledgeGraph and a cache keyed by its source files."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kgviz.atomic import write_atomic
from kgviz.cache_repair import CORRUPT, set_aside
from kgviz.kg.graph import KnowledgeGraph
from kgviz.kg.vocab import Vocabulary

FORMAT_VERSION = 1


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
    with np.load(path, allow_pickle=False) as data:
        if int(data["format_version"][0]) != FORMAT_VERSION:
            raise ValueError(
                f"{path}: processed graph format {int(data['format_version'][0])} "
                f"is not {FORMAT_VERSION}; delete it to rebuild"
            )
        entities = Vocabulary.from_arrays(data["entity_blob"], data["entity_offsets"], "entity")
        relations = Vocabulary.from_arrays(
            data["relation_blob"], data["relation_offsets"], "relation"
        )
        name = data["name"].tobytes().decode("utf-8")
        return KnowledgeGraph(entities, relations, data["triples"], name=name)


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
    if cache_file.is_file():
        try:
            return load_graph(cache_file)
        except CORRUPT as error:
            set_aside(cache_file, error)
    graph = build()
    save_graph(graph, cache_file)
    return graph
