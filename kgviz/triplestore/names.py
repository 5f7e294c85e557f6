"""The name store of a KG behind a SPARQL endpoint: its entities' and relations' names, the RDF
terms each stands for, and the normalised form of each entity name, in an SQLite file on disk.

kgviz's process reads it a question at a time (a name, the terms of an entity met by a walk), so
what the process holds does not grow with the KG. It is built once by streaming the endpoint's
listings of nodes, labels and predicates into the file (no listing is held in memory), named by
the RDF reader's rules (`kgviz.kg.rdf`: preferred label, else local name; shared names made
unique; a literal is the entity its lexical form names), and cached under the endpoint's
fingerprint. Entity ids follow the terms' order (IRIs sorted, then literals sorted by their
SPARQL spelling), so a vector index built over them is valid in every process.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from urllib.parse import quote

from rdflib import Literal, URIRef
from rdflib.term import Node

from kgviz.errors import StoreError
from kgviz.kg.normalise import normalise
from kgviz.kg.rdf import label_rank, literal_name, local_name, node_names, unique_candidates
from kgviz.kg.vocab import visible
from kgviz.storage.cache_repair import CorruptCache, load_or_build
from kgviz.triplestore.client import SparqlClient, SparqlError, count_value
from kgviz.triplestore.terms import Queries, iri_of, literal_parts, tsv_key

FORMAT_VERSION = 6  # 6: no table of shared entities (5: renaming as the RDF reader; 3: SQLite)
LOOKUP_BATCH = 900  # keys or ids per SQL statement (below SQLite's bound on parameters)
READ_CACHE_KIB = 32_000  # SQLite's page cache per open store

SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE TABLE entity(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, folded TEXT NOT NULL);
CREATE TABLE entity_term(key TEXT PRIMARY KEY, entity INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE relation(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE relation_term(key TEXT PRIMARY KEY, relation INTEGER NOT NULL) WITHOUT ROWID;
CREATE TEMP TABLE node(key TEXT PRIMARY KEY, iri TEXT, lexical TEXT) WITHOUT ROWID;
CREATE TEMP TABLE label(key TEXT NOT NULL, rank INTEGER, lang TEXT, text TEXT,
    UNIQUE (key, rank, lang, text));
CREATE TEMP TABLE named(
    key TEXT PRIMARY KEY, iri TEXT NOT NULL, base TEXT NOT NULL, name TEXT NOT NULL
) WITHOUT ROWID;
"""
INDEXES = """
CREATE INDEX entity_folded ON entity(folded);
CREATE INDEX entity_term_entity ON entity_term(entity);
"""


class NameStore:
    """Lookups in a built name store; entity ids are 0-based (the SQLite row id less one)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db = sqlite3.connect(
            f"file:{quote(str(path))}?mode=ro", uri=True, check_same_thread=False
        )
        self._lock = threading.Lock()
        try:
            self._db.execute(f"PRAGMA cache_size = -{READ_CACHE_KIB}")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version != FORMAT_VERSION:
                raise CorruptCache(f"name store format {version}, not {FORMAT_VERSION}")
            meta = dict(self._db.execute("SELECT key, value FROM meta"))
            self.triples = int(meta["triples"])
            self.num_entities = int(meta["entities"])
            self.timings = {
                key.removeprefix("seconds "): float(value)
                for key, value in meta.items()
                if key.startswith("seconds ")
            }
        except (sqlite3.DatabaseError, KeyError, ValueError, TypeError) as error:
            self._db.close()
            raise CorruptCache(f"not a name store ({error})") from None

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        """The connection, one reader at a time; a failed read is a `StoreError` naming the
        file."""
        with self._lock:
            try:
                yield self._db
            except sqlite3.Error as error:
                raise StoreError(
                    f"the name store {self.path} could not be read ({error}); delete it to build "
                    "it again from the endpoint"
                ) from None

    def _batches(self, sql: str, values: list) -> Iterator[tuple[list, list[tuple]]]:
        """Each batch of `values` with the rows of `sql` (with one `{}` for a list of parameters)
        over it (the store held until the last batch is read)."""
        with self._reading() as db:
            for start in range(0, len(values), LOOKUP_BATCH):
                batch = values[start : start + LOOKUP_BATCH]
                yield batch, db.execute(sql.format(",".join("?" * len(batch))), batch).fetchall()

    def _rows(self, sql: str, values: list) -> list[tuple]:
        """`sql` (with one `{}` for a list of parameters) over `values`, a batch at a time."""
        return [row for _, rows in self._batches(sql, values) for row in rows]

    def entities_of_terms(self, keys: list[str]) -> dict[str, int]:
        """The entity each of the distinct `keys` stands for (keys the store lacks are left
        out). Keys are asked in sorted order (SQLite's, for UTF-8 text), so that the entities come
        back alone, in that order; a batch that lacks a key is asked again with its keys."""
        found: dict[str, int] = {}
        lacking: list[str] = []
        sql = "SELECT entity - 1 FROM entity_term WHERE key IN ({}) ORDER BY key"
        for batch, rows in self._batches(sql, sorted(keys)):
            if len(rows) == len(batch):
                found.update(zip(batch, (entity for (entity,) in rows), strict=True))
            else:
                lacking += batch
        keyed = "SELECT key, entity - 1 FROM entity_term WHERE key IN ({})"
        found.update(self._rows(keyed, lacking))
        return found

    def names_of(self, entities: list[int]) -> dict[int, str]:
        sql = "SELECT id - 1, name FROM entity WHERE id IN ({})"
        return dict(self._rows(sql, [entity + 1 for entity in entities]))

    def terms_of(self, entities: list[int]) -> dict[int, list[str]]:
        """The term keys of each entity (one each, more where a literal is named like a node)."""
        found: dict[int, list[str]] = {}
        sql = "SELECT entity - 1, key FROM entity_term WHERE entity IN ({}) ORDER BY key"
        for entity, key in self._rows(sql, [entity + 1 for entity in entities]):
            found.setdefault(entity, []).append(key)
        return found

    def entity_named(self, name: str) -> int | None:
        found = self._rows("SELECT id - 1 FROM entity WHERE name IN ({})", [name])
        return found[0][0] if found else None

    def entities_folded(self, folded: str) -> list[int]:
        """The entities whose name normalises (`normalise`) to `folded`, by id."""
        sql = "SELECT id - 1 FROM entity WHERE folded IN ({}) ORDER BY id"
        return [entity for (entity,) in self._rows(sql, [folded])]

    def entity_names(self, start: int = 0, stop: int | None = None) -> list[str]:
        """The names of entities `start` to `stop` (all from `start` when None), by id."""
        stop = self.num_entities if stop is None else stop
        with self._reading() as db:
            rows = db.execute(
                "SELECT name FROM entity WHERE id > ? AND id <= ? ORDER BY id", (start, stop)
            ).fetchall()
        return [name for (name,) in rows]

    def relations(self) -> tuple[list[str], dict[str, int]]:
        """Relation names by id, and the relation each predicate's key stands for."""
        with self._reading() as db:
            names = [name for (name,) in db.execute("SELECT name FROM relation ORDER BY id")]
            terms = dict(db.execute("SELECT key, relation - 1 FROM relation_term"))
        return names, terms


def _listing(
    client: SparqlClient,
    query: Callable[[int, int, bool], str],
    page: int,
    consume: Callable[[list[list[str]]], None],
) -> None:
    """Every row of a listing, streamed to `consume`: in one request when it holds at most
    `page` rows (no order needed), else `page` rows per request in the query's order (servers
    sort slowly, so only then)."""
    if client.stream_cells(query(page + 1, 0, False), consume) <= page:
        return
    offset = 0
    while client.stream_cells(query(page, offset, True), consume) == page:
        offset += page


def _key(cell: str, endpoint: str) -> str | None:
    try:
        return tsv_key(cell)
    except ValueError as error:
        raise SparqlError(f"the SPARQL endpoint {endpoint} sent {error}") from None


class _Builder:
    """Streams an endpoint's listings into a new store file (see the module docstring)."""

    def __init__(self, client: SparqlClient, queries: Queries, page: int, path: Path) -> None:
        self.client, self.queries, self.page, self.path = client, queries, page, path
        self.db = sqlite3.connect(path, check_same_thread=False)  # listings stream on a worker
        self.db.executescript("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;" + SCHEMA)
        for name, function in (("folded", normalise), ("visible", visible)):
            self.db.create_function(name, 1, function, deterministic=True)
        self.timings: dict[str, float] = {}

    def _timed(self, step: str, started: float) -> None:
        self.timings[step] = time.perf_counter() - started

    def nodes(self) -> None:
        """Every IRI and literal at either end of a kept triple (blank nodes are tested for only
        once one shows: the test makes a scan of the whole KG many times slower)."""
        started = time.perf_counter()
        blank = [False]

        def add(rows: list[list[str]]) -> None:
            values: list[tuple[str, str | None, str | None]] = []
            for (cell,) in rows:
                key = _key(cell, self.client.endpoint)
                if key is None:
                    blank[0] = True
                elif key[0] == "<":
                    values.append((key, iri_of(key), None))
                else:
                    values.append((key, None, literal_parts(key)[0]))
            self.db.executemany("INSERT OR IGNORE INTO node VALUES (?, ?, ?)", values)

        queries = replace(self.queries, blank_nodes=False)
        for listing in (queries.subjects, queries.objects):
            _listing(self.client, listing, self.page, add)
        if blank[0]:
            self.db.execute("DELETE FROM node")
            self.queries = replace(self.queries, blank_nodes=True)
            for listing in (self.queries.subjects, self.queries.objects):
                _listing(self.client, listing, self.page, add)
        self._timed("entities", started)

    def labels(self) -> None:
        """Every label of an IRI that is a non-blank literal (others name nothing)."""
        started = time.perf_counter()

        def add(rows: list[list[str]]) -> None:
            values = []
            for named_cell, label_cell in rows:
                where = self.client.endpoint
                named, label = _key(named_cell, where), _key(label_cell, where)
                if named and named[0] == "<" and label and label[0] == '"':
                    text, lang = literal_parts(label)
                    if text.strip():
                        values.append((named, *label_rank(text, lang)))
            self.db.executemany("INSERT OR IGNORE INTO label VALUES (?, ?, ?, ?)", values)

        _listing(self.client, self.queries.labels, self.page, add)
        self._timed("labels", started)

    def relations(self) -> None:
        """Name the predicates of kept triples (few: named in memory)."""
        started = time.perf_counter()
        where, predicates = self.client.endpoint, set[str]()  # a set: a listing may repeat rows
        _listing(
            self.client,
            self.queries.predicates,
            self.page,
            lambda rows: predicates.update(_key(cell, where) or "" for (cell,) in rows),
        )
        key_of = {iri_of(key): key for key in predicates if key.startswith("<")}
        iris = sorted(key_of)
        labels: dict[Node, list[Literal]] = {}
        for iri in iris:
            rows = self.db.execute(
                "SELECT text, lang FROM label WHERE key = ?", (key_of[iri],)
            ).fetchall()
            labels[URIRef(iri)] = [Literal(text, lang=lang or None) for text, lang in rows]
        names = node_names({URIRef(iri): iri for iri in iris}, labels)
        self.db.executemany(
            "INSERT INTO relation VALUES (?, ?)",
            [(number, names[URIRef(iri)]) for number, iri in enumerate(iris, 1)],
        )
        self.db.executemany(
            "INSERT INTO relation_term VALUES (?, ?)",
            [(key_of[iri], number) for number, iri in enumerate(iris, 1)],
        )
        self._timed("relations", started)

    def triples(self) -> int:
        """How many triples kgviz keeps."""
        rows = self.client.select(self.queries.count())
        return count_value(rows[0], self.client.endpoint) if rows else 0

    def entities(self) -> None:
        """Name every node: IRIs by preferred label or local name, shared names made unique
        (`_unshare`), then literals; an entity is named once (a literal, or a renamed node,
        spelled as another entity's name is that entity, as `Vocabulary.add` makes it)."""
        started = time.perf_counter()
        best_label = (
            "SELECT text FROM label WHERE label.key = node.key ORDER BY rank, lang, text LIMIT 1"
        )
        cursor = self.db.execute(f"SELECT key, iri, ({best_label}) FROM node WHERE iri NOT NULL")
        while rows := cursor.fetchmany(50_000):
            self.db.executemany(
                "INSERT INTO named VALUES (?, ?, ?, ?)",
                [
                    (key, iri, base, base)
                    for key, iri, label in rows
                    for base in [visible(label.strip() if label else local_name(iri))]
                ],
            )
        self.db.execute("CREATE INDEX temp.named_base ON named(base)")
        self._unshare()
        self.db.execute(
            "INSERT OR IGNORE INTO entity(name, folded) "
            "SELECT name, folded(name) FROM named ORDER BY iri"
        )
        self.db.execute(
            "INSERT INTO entity_term SELECT key, entity.id FROM named JOIN entity USING (name)"
        )
        literals = self.db.execute("SELECT key, lexical FROM node WHERE iri IS NULL ORDER BY key")
        while rows := literals.fetchmany(50_000):
            named = [(key, visible(literal_name(lexical))) for key, lexical in rows]
            self.db.executemany(
                "INSERT OR IGNORE INTO entity(name, folded) VALUES (?, folded(?))",
                [(name, name) for _, name in named],
            )
            self.db.executemany(
                "INSERT INTO entity_term SELECT ?, id FROM entity WHERE name = ?", named
            )
        self._timed("naming", started)

    def _unshare(self) -> None:
        """Rename the nodes of each shared name as `kgviz.kg.rdf.node_names` does: groups in
        order of their first node, nodes in order of their IRI, each the first candidate
        (`name (local name)`, else `name (IRI)`, else numbered) that no unshared node is called
        and no renamed node took."""
        groups = self.db.execute(
            "SELECT base FROM named GROUP BY base HAVING COUNT(*) > 1 ORDER BY MIN(iri)"
        ).fetchall()
        taken: set[str] = set()

        def free(candidate: str) -> bool:
            if candidate in taken:
                return False
            owners = self.db.execute(
                "SELECT COUNT(*) FROM named WHERE base = ?", (candidate,)
            ).fetchone()[0]
            return owners != 1  # an unshared name is taken; a shared one is free

        for (base,) in groups:
            members = self.db.execute(
                "SELECT key, iri FROM named WHERE base = ? ORDER BY iri", (base,)
            ).fetchall()
            for key, iri in members:
                unique = next(c for c in unique_candidates(base, iri) if free(c))
                taken.add(unique)
                self.db.execute("UPDATE named SET name = ? WHERE key = ?", (visible(unique), key))

    def finish(self, triples: int) -> None:
        started = time.perf_counter()
        self.db.executescript(INDEXES)
        entities = self.db.execute("SELECT COUNT(*) FROM entity").fetchone()[0]
        self._timed("indexing", started)
        meta = {"triples": triples, "entities": entities}
        meta |= {f"seconds {step}": seconds for step, seconds in self.timings.items()}
        self.db.executemany("INSERT INTO meta VALUES (?, ?)", list(meta.items()))
        self.db.execute(f"PRAGMA user_version = {FORMAT_VERSION}")
        self.db.commit()
        self.db.close()


def build_name_store(client: SparqlClient, queries: Queries, page: int, path: Path) -> None:
    """Stream the endpoint into a new store at `path` (written beside it, then moved in)."""
    partial = path.with_name(path.name + ".partial")
    partial.unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    builder = _Builder(client, queries, page, partial)
    try:
        builder.nodes()
        builder.labels()
        builder.relations()
        builder.entities()
        builder.finish(builder.triples())
    except BaseException:
        builder.db.close()
        partial.unlink(missing_ok=True)
        raise
    os.replace(partial, path)


def cached_name_store(path: Path, client: SparqlClient, queries: Queries, page: int) -> NameStore:
    """Open `path`, else build the store there; an unreadable file is set aside and rebuilt."""

    def build() -> NameStore:
        build_name_store(client, queries, page, path)
        return NameStore(path)

    return load_or_build(path, NameStore, build, lambda store, where: None)
