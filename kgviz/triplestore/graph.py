"""A KG behind a SPARQL endpoint, read as a `KnowledgeGraph` that holds what has been met.

Its names and terms are in the name store on disk (`names.py`); the process holds only the
entities it has met (by a walk, a vector hit or a name lookup), numbered in the order met, and
the triples fetched so far, appended in the order they came; an id and a row keep their meaning
until the graph drops what it holds, which it does only between runs (`in_use`). `reach`
fetches, in batched `VALUES` queries, every triple a bounded walk needs (the complete
neighbourhood of each entity it walks through, and the degree of each hub it stops at); the
methods then run their own algorithms on the graph it returns, exactly as in memory.
"""

from __future__ import annotations

import hashlib
import threading
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

import numpy as np

from kgviz.errors import StoreError
from kgviz.kg.graph import KnowledgeGraph, concat_ranges
from kgviz.kg.vocab import Vocabulary
from kgviz.triplestore.client import Coded, SparqlClient, SparqlError, count_of, count_value
from kgviz.triplestore.config import EndpointConfig
from kgviz.triplestore.memory import return_freed_memory
from kgviz.triplestore.met import MetEntities, RanksAmong
from kgviz.triplestore.names import FORMAT_VERSION as NAMES_FORMAT
from kgviz.triplestore.names import NameStore, cached_name_store
from kgviz.triplestore.terms import Queries, tsv_key


@dataclass
class WalkStats:
    """Entities whose triples walks fetched, those they found fetched already, and how often
    the fetched triples were dropped to keep within `cache_triples`."""

    fetched: int = 0
    reused: int = 0
    dropped: int = 0


FETCH_THREADS = 2  # queries of one walk step asked ahead of the one being read


class FetchLimitError(StoreError):
    """A walk would fetch more triples than `max_fetch` allows."""


def endpoint_fingerprint(config: EndpointConfig, triples: int) -> str:
    """A key that changes with the endpoint, graph, label predicate or number of triples (all of
    them, labels too)."""
    text = f"{config.endpoint}|{config.graph}|{config.label}|{triples}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _flagged(flags: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """`flags[ids]`, False for ids beyond `flags`."""
    inside = ids < len(flags)
    found = np.zeros(len(ids), dtype=bool)
    found[inside] = flags[ids[inside]]
    return found


def _distinct(parts: list[np.ndarray]) -> np.ndarray:
    """The distinct rows of `parts` (each `(n, 3)`), in the order first met."""
    rows = np.concatenate(parts) if parts else np.zeros((0, 3), np.int64)
    _, first = np.unique(rows, axis=0, return_index=True)
    return rows[np.sort(first)]


class SparqlGraph(KnowledgeGraph):
    """The KG behind `config.endpoint`; see the module docstring."""

    fetches = True

    def __init__(
        self, config: EndpointConfig, store: NameStore, name: str, client: SparqlClient
    ) -> None:
        relation_names, self._relation_terms = store.relations()
        self.met = entities = MetEntities(store, self.meet_named)
        super().__init__(
            entities, Vocabulary(relation_names, "relation"), np.zeros((0, 3), np.int32), name
        )
        self.config, self.store, self.client = config, store, client
        self.queries = Queries(config.graph, config.label)
        self._complete = np.zeros(0, dtype=bool)
        self._degree = np.zeros(0, dtype=np.int64)
        self._lock = threading.RLock()
        self._readers = 0  # runs and views inside `in_use`
        self.walks = WalkStats()

    @classmethod
    def open(cls, config: EndpointConfig, name: str, cache_dir: Path) -> SparqlGraph:
        """Count the endpoint's triples, then open (or build and cache) its name store."""
        client = SparqlClient(config.endpoint, config.timeout, config.rate)
        queries = Queries(config.graph, config.label)
        rows = client.select(queries.count_all())
        total = count_value(rows[0], config.endpoint) if rows else 0
        fingerprint = endpoint_fingerprint(config, total)
        path = cache_dir / f"sparql-{fingerprint}.sqlite"
        store = cached_name_store(path, client, queries, config.page) if total else None
        if store is None or store.triples == 0:
            raise StoreError(
                f"the SPARQL endpoint {config.endpoint} holds no triples"
                + (f" in graph <{config.graph}>" if config.graph else "")
                + (" other than labels" if total else "")
            )
        graph = cls(config, store, name, client)
        graph.fingerprint = f"{fingerprint}n{NAMES_FORMAT}"  # index rows follow the store
        return graph

    # ----------------------------------------------------------------- meeting entities
    def meet_named(self, name: str) -> int | None:
        """The id of the entity called `name`, met now if the store has it, else None."""
        stored = self.store.entity_named(name)
        return None if stored is None else int(self._meet([stored])[0])

    def entities_at(self, rows: np.ndarray) -> np.ndarray:
        """The ids of the store's entities `rows` (a vector index's rows), met now."""
        return self._meet(np.asarray(rows, dtype=np.int64).tolist())

    def stored_rows(self, entities: np.ndarray) -> np.ndarray:
        return self.met.stored_of(np.asarray(entities, dtype=np.int64))

    def stored_entity_names(self, start: int, stop: int) -> list[str]:
        return self.store.entity_names(start, stop)

    def entities_normalised(self, key: str) -> list[int]:
        return self._meet(self.store.entities_folded(key)).tolist()

    def _meet(self, stored: list[int] | np.ndarray) -> np.ndarray:
        """The ids here of the store's entities `stored`, numbering those not met before (by
        store id; the arrays grow first, so that no id outruns them)."""
        stored = np.asarray(stored, dtype=np.int64)
        with self._lock:
            here = self.met.here(stored)
            unmet = here < 0
            if unmet.any():
                new = np.unique(stored[unmet])
                self._grown(self.num_entities + new.size)
                self.met.add_unnamed(new)
                here[unmet] = self.met.here(stored[unmet])
            return here

    def _grown(self, num_entities: int) -> None:
        super()._grown(num_entities)
        missing = num_entities - len(self._complete)
        if missing > 0:
            self._complete = np.concatenate([self._complete, np.zeros(missing, bool)])
            self._degree = np.concatenate([self._degree, np.full(missing, -1, np.int64)])

    def _keys_of(self, entities: np.ndarray) -> list[str]:
        """The term keys of `entities` (one each, more where several terms share a name), read
        from the name store."""
        terms = self.store.terms_of(self.met.stored_of(entities).tolist())
        return [key for keys in terms.values() for key in keys]

    def _ids_of_terms(self, keys: list[str]) -> dict[str, int]:
        """The ids here of the entities of term `keys`, met now; a term the store lacks is an
        error."""
        found = self.store.entities_of_terms(keys)
        if missing := [key for key in keys if key not in found]:
            raise SparqlError(
                f"the SPARQL endpoint {self.config.endpoint} holds {missing[0][:80]}, which its "
                "name store does not: the KG changed since the store was built (it is rebuilt "
                "when the number of triples changes; delete the cached sparql-*.sqlite to force "
                "it)"
                + (
                    ', or the endpoint writes TSV loosely (then set results = "json" in kb.sparql)'
                    if self.config.results == "tsv"
                    else ""
                )
            )
        here = self._meet([found[key] for key in keys])
        return dict(zip(keys, here.tolist(), strict=True))

    @property
    def entity_rank(self) -> RanksAmong:  # type: ignore[override]  # indexed as the array is
        """Ranks by name among the entities each lookup asks for (`RanksAmong`)."""
        return RanksAmong(self.met)

    @property
    def stored_triples(self) -> int:
        return self.store.triples

    @property
    def stored_entities(self) -> int:
        return self.store.num_entities

    # ----------------------------------------------------------------- walks
    @contextmanager
    def in_use(self) -> Iterator[None]:
        """Hold the graph for the block, one reader at a time (a walk adds entities and triples
        that another reader's arrays are not sized for); entered from outside any block with
        more than `cache_triples` triples or met entities held, it first drops them all
        (`_forget`: fetched and met again as walks need them), and the last reader out hands
        freed memory back to the system, so a long session's memory stays bounded."""
        with self._lock:
            held = max(self.num_triples, self.num_entities)
            if self._readers == 0 and held > self.config.cache_triples:
                self._forget()
            self._readers += 1
            try:
                yield
            finally:
                self._readers -= 1
                if self._readers == 0:
                    return_freed_memory()

    def _forget(self) -> None:
        """Drop every fetched triple and every met entity (ids start from 0 again, in a new
        `generation`)."""
        self.met.clear()
        self._complete = np.zeros(0, dtype=bool)
        self._degree = np.zeros(0, dtype=np.int64)
        self._rebuild(np.zeros((0, 3), np.int32))
        self.generation += 1
        self.walks.dropped += 1

    def reach(
        self, seeds: Iterable[int], hops: int, hub_degree: int | None = None
    ) -> KnowledgeGraph:
        """Fetch what a walk of `hops` from `seeds` takes (see `KnowledgeGraph.reach`)."""
        with self._lock:
            frontier = np.unique(np.fromiter(seeds, dtype=np.int64))
            seen = np.zeros(self.num_entities, dtype=bool)
            seen[frontier] = True
            budget = [self.config.max_fetch]  # triples this walk may still fetch
            for layer in range(hops):
                if frontier.size == 0:
                    break
                if layer and hub_degree is not None:
                    frontier = frontier[self.degrees(frontier) <= hub_degree]
                self._fetch(frontier, budget)
                seen = np.concatenate([seen, np.zeros(self.num_entities - len(seen), bool)])
                ptr = self.adj.ptr
                reached = self.adj.neighbor[concat_ranges(ptr[frontier], ptr[frontier + 1])]
                frontier = np.unique(reached[~seen[reached]])
                seen[frontier] = True
            return self

    def degrees(self, entities: np.ndarray) -> np.ndarray:
        """Degrees from the endpoint (asked once per entity, in batches; kept only once a
        batch's answer is whole)."""
        with self._lock:
            ids = np.asarray(entities, dtype=np.int64)
            unknown = np.unique(ids[self._degree[ids] < 0])
            for start in range(0, unknown.size, self.config.batch):
                batch = unknown[start : start + self.config.batch]
                counts = dict.fromkeys(batch.tolist(), 0)
                query = self.queries.degrees(self._keys_of(batch))
                rows = [
                    (key, count_of(count, self.config.endpoint))
                    for term, count in self.client.select_cells(query, self.config.results)
                    if (key := self._key(term)) is not None
                ]
                met = self._ids_of_terms(list({key for key, _ in rows}))
                for key, count in rows:
                    counts[met[key]] += count
                self._degree[list(counts)] = list(counts.values())
            return self._degree[ids]

    def _fetch(self, entities: np.ndarray, budget: list[int]) -> None:
        """Append every triple touching `entities` not fetched before, merged into the CSR.
        Nothing is kept unless every batch came whole and within the walk's `budget`."""
        todo = np.unique(entities[~self._complete[entities]])
        self.walks.fetched += todo.size
        self.walks.reused += np.unique(entities).size - todo.size
        if todo.size == 0:
            return
        # a triple is held already when its other end was fetched whole before this fetch
        held = self._complete.copy()
        parts: list[np.ndarray] = []  # the fresh triples of each reply, repeats among them
        distinct, since = 0, 0  # rows in parts[0] when last deduped, rows added since
        queries = [
            self.queries.incident(
                self._keys_of(todo[start : start + self.config.batch]), limit=budget[0] + 1
            )
            for start in range(0, todo.size, self.config.batch)
        ]
        for reply in self._answers(queries):
            if len(reply.codes) > budget[0]:  # cut at the query's LIMIT: past the walk's budget
                raise self._fetch_limit()
            triples = self._triples(reply)
            parts.append(triples[~(_flagged(held, triples[:, 0]) | _flagged(held, triples[:, 2]))])
            since += len(parts[-1])
            if distinct + since > budget[0]:  # maybe past the budget: count without repeats
                parts = [_distinct(parts)]
                distinct, since = len(parts[0]), 0
                if distinct > budget[0]:
                    raise self._fetch_limit()
        added = _distinct(parts)
        budget[0] -= len(added)
        self._complete[todo] = True
        if len(added):
            self._append(added.astype(np.int32))
        self._degree[todo] = KnowledgeGraph.degrees(self, todo)

    def _fetch_limit(self) -> FetchLimitError:
        return FetchLimitError(
            f"a walk over {self.config.endpoint} would fetch more than "
            f"{self.config.max_fetch:,} triples; raise max_fetch in kb.sparql or use fewer hops"
        )

    def _answers(self, queries: list[str]) -> Iterator[Coded]:
        """The rows of each query, coded, in order, with the next `FETCH_THREADS` asked while the
        caller reads one (so the endpoint answers one while kgviz reads another). No more is
        asked or held: a caller that stops reading leaves at most those in flight, on daemon
        threads that end within the query deadline and never hold up the interpreter's exit."""
        if len(queries) == 1:
            yield self.client.select_coded(queries[0], self.config.results)
            return
        waiting = iter(queries)
        in_flight = deque(self._ask(query) for query in islice(waiting, FETCH_THREADS))
        while in_flight:
            reply = in_flight.popleft().result()
            if (query := next(waiting, None)) is not None:
                in_flight.append(self._ask(query))
            yield reply

    def _ask(self, query: str) -> Future[Coded]:
        """`query`'s rows, asked and coded on a daemon thread (so a reply waiting to be read is
        held compactly)."""
        answer: Future[Coded] = Future()

        def work() -> None:
            try:
                answer.set_result(self.client.select_coded(query, self.config.results))
            except BaseException as error:  # noqa: BLE001  (handed to the reader, stops included)
                answer.set_exception(error)

        threading.Thread(target=work, name="kgviz-sparql", daemon=True).start()
        return answer

    def _triples(self, reply: Coded) -> np.ndarray:
        """The ids of a reply's `?s ?p ?o` rows, `(n, 3)` (each distinct term read once and
        looked up in the name store in one batch); rows with a blank node or a predicate that is
        no relation are left out."""
        codes, cells = reply.codes, reply.cells
        ends = np.unique(codes[:, [0, 2]]).tolist()
        keys = {code: key for code in ends if (key := self._key(cells[code])) is not None}
        ids = self._ids_of_terms(list(set(keys.values())))
        entity = np.full(len(cells), -1, np.int64)
        entity[list(keys)] = [ids[key] for key in keys.values()]
        relation = np.full(len(cells), -1, np.int64)
        predicates = np.unique(codes[:, 1])
        relation[predicates] = [self._relation(cells[code]) for code in predicates.tolist()]
        triples = np.stack(
            [entity[codes[:, 0]], relation[codes[:, 1]], entity[codes[:, 2]]], axis=1
        )
        return triples[(triples >= 0).all(axis=1)]

    def _key(self, cell: str) -> str | None:
        """The term key of a TSV cell (None for a blank node); a cell that is no term is an
        error naming the endpoint."""
        try:
            return tsv_key(cell)
        except ValueError as error:
            raise SparqlError(f"the SPARQL endpoint {self.config.endpoint} sent {error}") from None

    def _relation(self, cell: str) -> int:
        """The relation id of a TSV cell (-1 for a predicate that is no relation)."""
        return self._relation_terms.get(self._key(cell) or "", -1)
