"""A KG as N-Triples, to load into a triple store (`oxigraph load`, Virtuoso, QLever).

Each entity and relation becomes an IRI under `base` with its name as `rdfs:label`, so that
reading the file back (`kgviz.kg.rdf`) or through an endpoint (`kb.sparql`) gives the same names.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from kgviz.kg.graph import KnowledgeGraph
from kgviz.storage.atomic import atomic_path
from kgviz.triplestore.terms import RDFS_LABEL, iri_key, term_key

CHUNK = 100_000


def _literal(text: str) -> str:
    key = term_key({"type": "literal", "value": text})
    assert key is not None
    return key


def write_ntriples(kg: KnowledgeGraph, path: Path, base: str = "http://kgviz.local/") -> int:
    """Write `kg` to `path` (atomically); the number of lines written."""
    root = f"{base}{quote(kg.name, safe='')}/"
    entity = [iri_key(f"{root}entity/{quote(name, safe='')}") for name in kg.entities]
    relation = [iri_key(f"{root}relation/{quote(name, safe='')}") for name in kg.relations]
    label = iri_key(RDFS_LABEL)
    lines = 0
    with atomic_path(path) as temporary, temporary.open("w", encoding="utf-8") as out:
        for iris, names in ((entity, kg.entities), (relation, kg.relations)):
            for iri, name in zip(iris, names, strict=True):
                out.write(f"{iri} {label} {_literal(name)} .\n")
                lines += 1
        for start in range(0, len(kg.triples), CHUNK):  # chunks keep large KGs' lists small
            chunk = kg.triples[start : start + CHUNK]
            for head, rel, tail in chunk.tolist():
                out.write(f"{entity[head]} {relation[rel]} {entity[tail]} .\n")
            lines += len(chunk)
    return lines
