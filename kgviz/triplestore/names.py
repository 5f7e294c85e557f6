"""The name table of a KG behind a SPARQL endpoint: dense ids for its entities and relations,
their names, and the RDF terms each stands for.

It is built once by paging through the endpoint's predicates, nodes and labels, named by the
RDF reader's rules (`kgviz.kg.rdf`: preferred label, else local name; shared names made unique;
a literal is the entity its lexical form names), and cached under the endpoint's fingerprint.
Ids follow the terms' order (IRIs sorted, then literals, sorted by their SPARQL spelling), so
they are the same in every process, which saved traces and vector indexes rely on.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from rdflib import Literal, URIRef
from rdflib.term import Node

from kgviz.kg.rdf import literal_name, node_names
from kgviz.kg.store import checked_vocabulary
from kgviz.kg.vocab import Vocabulary
from kgviz.storage.atomic import write_atomic
from kgviz.storage.cache_repair import CorruptCache, load_or_build
from kgviz.triplestore.client import Binding, SparqlClient, bound, count_value
from kgviz.triplestore.terms import LITERALS, Queries, iri_key, term_key

FORMAT_VERSION = 2  # 2: control characters in term keys written as \uXXXX


@dataclass
class NameTable:
    """Entities and relations with their names, and the term keys (`terms.py`) of each."""

    entities: Vocabulary
    relations: Vocabulary
    entity_terms: Vocabulary  # term key -> term id
    term_entity: np.ndarray  # term id -> entity id
    relation_terms: Vocabulary
    term_relation: np.ndarray
    triples: int  # kept triples the endpoint held when the table was built
    timings: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        order = np.argsort(self.term_entity, kind="stable")
        counts = np.bincount(self.term_entity, minlength=len(self.entities))
        self._term_order = order
        self._term_ptr = np.concatenate([[0], np.cumsum(counts)])

    def keys_of(self, entities: np.ndarray) -> list[str]:
        """The term keys of `entities` (one each, more where several terms share a name)."""
        ptr, order = self._term_ptr, self._term_order
        return [
            self.entity_terms[int(term)]
            for entity in entities.tolist()
            for term in order[ptr[entity] : ptr[entity + 1]]
        ]


def _paged(
    client: SparqlClient, query: Callable[[int, int, bool], str], page: int
) -> Iterator[Binding]:
    """Every row of a listing: in one request when it holds at most `page` rows (no order needed),
    else `page` rows per request in the query's order (servers sort slowly, so only then)."""
    rows = client.select(query(page + 1, 0, False))
    if len(rows) <= page:
        yield from rows
        return
    offset = 0
    while True:
        rows = client.select(query(page, offset, True))
        yield from rows
        if len(rows) < page:
            return
        offset += page


def _nodes(
    client: SparqlClient, queries: Queries, page: int
) -> tuple[list[str], list[tuple[str, str]], bool]:
    """The sorted IRIs and (key, lexical form) literals at either end of a kept triple, and
    whether a blank node was among them (then `queries` must test for them to be exact)."""
    iri_set: set[str] = set()
    literal_set: dict[str, str] = {}  # key -> lexical form
    blank_nodes = False
    for listing in (queries.subjects, queries.objects):
        for row in _paged(client, listing, page):
            term = bound(row, "x", client.endpoint)
            if term["type"] == "uri":
                iri_set.add(term["value"])
            elif (key := term_key(term)) is not None:
                literal_set[key] = term["value"]
            else:
                blank_nodes = True
    return sorted(iri_set), sorted(literal_set.items()), blank_nodes


def build_name_table(client: SparqlClient, queries: Queries, page: int) -> NameTable:
    """Page through the endpoint and name what it holds (see the module docstring)."""
    timings: dict[str, float] = {}
    where = client.endpoint

    started = time.perf_counter()
    queries = replace(queries, blank_nodes=False)  # cheap listings, unless a blank node shows
    iris, literals, blank_nodes = _nodes(client, queries, page)
    if blank_nodes:
        queries = replace(queries, blank_nodes=True)
        iris, literals, _ = _nodes(client, queries, page)
    timings["entities"] = time.perf_counter() - started

    started = time.perf_counter()
    listing = _paged(client, queries.predicates, page)
    predicates = sorted(bound(row, "x", where)["value"] for row in listing)
    rows = client.select(queries.count())
    triples = count_value(rows[0], where) if rows else 0
    timings["relations"] = time.perf_counter() - started

    started = time.perf_counter()
    labels: dict[Node, list[Literal]] = defaultdict(list)
    for row in _paged(client, queries.labels, page):  # other than IRIs named by text: skipped
        named, label = bound(row, "x", where), bound(row, "l", where)
        if named["type"] == "uri" and label["type"] in LITERALS and label["value"].strip():
            labels[URIRef(named["value"])].append(
                Literal(label["value"], lang=label.get("xml:lang") or None)
            )
    timings["labels"] = time.perf_counter() - started

    started = time.perf_counter()
    entity_names = node_names({URIRef(iri): iri for iri in iris}, labels)
    entities, entity_terms, term_entity = Vocabulary(kind="entity"), Vocabulary(), []
    for iri in iris:
        entity_terms.add(iri_key(iri))
        term_entity.append(entities.add(entity_names[URIRef(iri)]))
    for key, lexical in literals:
        entity_terms.add(key)
        term_entity.append(entities.add(literal_name(lexical)))
    relation_names = node_names({URIRef(p): p for p in predicates}, labels)
    relations, relation_terms = Vocabulary(kind="relation"), Vocabulary()
    term_relation = []
    for predicate in predicates:
        relation_terms.add(iri_key(predicate))
        term_relation.append(relations.add(relation_names[URIRef(predicate)]))
    timings["naming"] = time.perf_counter() - started
    return NameTable(
        entities,
        relations,
        entity_terms,
        np.array(term_entity, dtype=np.int32),
        relation_terms,
        np.array(term_relation, dtype=np.int32),
        triples,
        timings,
    )


def save_name_table(table: NameTable, path: Path) -> None:
    arrays: dict[str, Any] = {"format_version": np.array([FORMAT_VERSION])}
    for label, vocab in (
        ("entity", table.entities),
        ("relation", table.relations),
        ("entity_term", table.entity_terms),
        ("relation_term", table.relation_terms),
    ):
        arrays[f"{label}_blob"], arrays[f"{label}_offsets"] = vocab.to_arrays()
    arrays["term_entity"], arrays["term_relation"] = table.term_entity, table.term_relation
    arrays["triples"] = np.array([table.triples])
    write_atomic(path, lambda handle: np.savez(handle, **arrays))


def load_name_table(path: Path) -> NameTable:
    """The table saved at `path`; `CorruptCache` unless its arrays fit together."""
    with np.load(path, allow_pickle=False) as data:
        if int(data["format_version"][0]) != FORMAT_VERSION:
            raise CorruptCache(f"name table format {int(data['format_version'][0])}")
        vocabs = {
            label: checked_vocabulary(data[f"{label}_blob"], data[f"{label}_offsets"], label)
            for label in ("entity", "relation", "entity_term", "relation_term")
        }
        term_entity, term_relation = data["term_entity"], data["term_relation"]
        triples = int(data["triples"][0])
    for terms, ids, named in (
        (vocabs["entity_term"], term_entity, vocabs["entity"]),
        (vocabs["relation_term"], term_relation, vocabs["relation"]),
    ):
        if ids.dtype != np.int32 or len(ids) != len(terms):
            raise CorruptCache("term ids do not match the terms")
        if len(ids) and (ids.min() < 0 or ids.max() >= len(named)):
            raise CorruptCache("a term names an id the table does not have")
    return NameTable(
        vocabs["entity"],
        vocabs["relation"],
        vocabs["entity_term"],
        term_entity,
        vocabs["relation_term"],
        term_relation,
        triples,
    )


def cached_name_table(path: Path, build: Callable[[], NameTable]) -> NameTable:
    """Load `path`, else build the table and save it atomically; a torn file is set aside."""
    return load_or_build(path, load_name_table, build, save_name_table)
