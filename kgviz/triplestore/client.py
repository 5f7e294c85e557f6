"""SPARQL 1.1 SELECT queries over HTTP, with a total deadline, retries and one-line errors.

The rules are the LLM layer's: each request runs under a total deadline that works in any thread
(`run_with_deadline`), transient failures (HTTP 5xx, a dropped connection, a slow connect) are
retried after the same pauses once the endpoint has answered, and a refused connection ends at
once; a cancelled request (Ctrl-C, the lab's Stop) stays a cancellation. A reply that is not a
SPARQL JSON result is an error naming what was wrong, never a traceback.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

import httpx
import numpy as np

from kgviz.errors import StoreError
from kgviz.llm.base import RETRY_PAUSES_S
from kgviz.llm.deadline import run_with_deadline
from kgviz.llm.errors import (
    LLMCancelled,
    LLMError,
    LLMTimeout,
    LLMTransient,
    LLMUnavailable,
)
from kgviz.llm.http_errors import CONNECT_TIMEOUT_S, status_error, transport_error
from kgviz.triplestore.terms import term_key

log = logging.getLogger(__name__)
REPLY_CAP = 256_000_000  # bytes of one result at most (a page of a million names: ~150 MB)
COUNT_DIGITS = 18  # a COUNT longer than this is no count of a KG's triples
Binding = dict[str, dict[str, str]]  # variable -> {"type": ..., "value": ..., ...}
JSON_RESULTS = "application/sparql-results+json"
TSV_RESULTS = "text/tab-separated-values"


class SparqlError(StoreError):
    """A SPARQL endpoint refused a query or sent something that is not a result."""


class SparqlUnavailable(SparqlError):
    """The endpoint cannot be reached (stopped, wrong address): an evaluation stops here."""


class SparqlTransient(SparqlError):
    """A failure that may pass on a retry (HTTP 5xx, a dropped connection, a timeout)."""


@dataclass
class QueryStats:
    """What a client has done: queries sent, rows read, seconds spent, retries."""

    queries: int = 0
    rows: int = 0
    seconds: float = 0.0
    retries: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, rows: int, seconds: float) -> None:
        with self.lock:
            self.queries += 1
            self.rows += rows
            self.seconds += seconds


@dataclass
class SparqlClient:
    """SELECT queries against one endpoint; `timeout_s` bounds each query (all its attempts)."""

    endpoint: str
    timeout_s: float = 60.0
    rate: float | None = None  # queries per second at most
    stats: QueryStats = field(default_factory=QueryStats)
    _next_at: float = field(default=0.0, repr=False)
    _answered: bool = field(default=False, repr=False)  # a drop after a first reply may pass
    _pace: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _http: httpx.Client | None = field(default=None, repr=False)  # kept alive between queries
    _http_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def select(self, query: str) -> list[Binding]:
        """The bindings of a SELECT query, retried on transient failures within the deadline."""
        return self._select(query, JSON_RESULTS, parse_bindings)

    def select_cells(self, query: str, results: str = "tsv") -> list[list[str]]:
        """The rows of a SELECT query as SPARQL TSV cells (each term as SPARQL writes it, ""
        when unbound), in the order of its variables: for queries of many rows, as TSV is
        cheaper than JSON for the endpoint to write and for kgviz to read. With `results` "json"
        they are asked as JSON and written as TSV would (for an endpoint whose TSV is loose)."""
        return self._select_rows(query, results, lambda rows, _: list(rows))

    def select_coded(self, query: str, results: str = "tsv") -> Coded:
        """`select_cells`'s rows coded as they are read (no row is held as strings)."""
        return self._select_rows(query, results, code_rows)

    def _select_rows(
        self, query: str, results: str, collect: Callable[[Iterator[list[str]], int], Any]
    ) -> Any:
        """What `collect` makes of the rows of a SELECT query and their width."""
        accept, read = (JSON_RESULTS, json_rows) if results == "json" else (TSV_RESULTS, tsv_rows)
        return self._select(query, accept, lambda body, endpoint: collect(*read(body, endpoint)))

    def stream_cells(self, query: str, consume: Callable[[list[list[str]]], None]) -> int:
        """Hand the rows of a SELECT query's TSV result to `consume` as they arrive, a batch at a
        time, with no cap on the whole reply (a listing of millions of terms); the number of rows.
        A retried attempt hands its rows again from the first, so `consume` must be idempotent
        (`INSERT OR IGNORE`)."""

        attempts = [0]  # a timed-out attempt's worker may still be reading: it hands on nothing

        def read(chunks: Iterator[bytes]) -> int:
            attempts[0] += 1
            mine = attempts[0]

            def current(rows: list[list[str]]) -> None:
                if attempts[0] != mine:
                    raise SparqlTransient(f"the SPARQL endpoint {self.endpoint}: a stale reply")
                consume(rows)

            return stream_tsv(chunks, current, self.endpoint)

        return self._select(query, TSV_RESULTS, lambda count, _: count, read)

    def _select(
        self,
        query: str,
        accept: str,
        parse: Callable[[Any, str], Any],
        read: Callable[[Iterator[bytes]], Any] | None = None,
    ) -> Any:
        """What `parse` reads from the reply asked for as `accept` (the body, or what `read`
        made of its chunks), retried on transient failures within the deadline."""
        self._wait_turn()
        deadline = time.monotonic() + self.timeout_s
        started = time.perf_counter()
        for attempt, pause in enumerate((*RETRY_PAUSES_S, None), start=1):
            try:
                rows = parse(self._attempt(query, accept, deadline, read), self.endpoint)
                count = rows if isinstance(rows, int) else len(rows)
                self.stats.add(count, time.perf_counter() - started)
                return rows
            except SparqlTransient as error:
                if pause is None or time.monotonic() + pause >= deadline:
                    raise SparqlTransient(f"{error} ({attempt} attempt(s))") from error
                log.warning("%s; retrying in %g s", error, pause)
                with self.stats.lock:
                    self.stats.retries += 1
                time.sleep(pause)
        raise AssertionError("unreachable")

    def _wait_turn(self) -> None:
        """Keep to `rate` queries per second (across threads)."""
        if self.rate is None:
            return
        with self._pace:
            now = time.monotonic()
            wait, self._next_at = self._next_at - now, max(now, self._next_at) + 1.0 / self.rate
        if wait > 0:
            time.sleep(wait)

    def _connection(self) -> httpx.Client:
        """The HTTP client queries share (keep-alive; built once, as it costs ~30 ms)."""
        with self._http_lock:
            if self._http is None:
                self._http = httpx.Client(
                    timeout=httpx.Timeout(self.timeout_s, connect=CONNECT_TIMEOUT_S),
                    trust_env=False,
                )
            return self._http

    def _drop(self, client: httpx.Client) -> None:
        """Close `client`, abandoning its requests (a deadline passed or the user stopped), so
        the next query opens a fresh one."""
        with self._http_lock:
            if self._http is client:
                self._http = None
        client.close()

    def _attempt(
        self,
        query: str,
        accept: str,
        deadline: float,
        read: Callable[[Iterator[bytes]], Any] | None,
    ) -> Any:
        """The body of one request's reply, or what `read` made of its chunks."""
        client = self._connection()
        try:
            body = run_with_deadline(
                lambda: self._post(client, query, accept, read),
                self.timeout_s,
                lambda: self._drop(client),
                f"the SPARQL endpoint {self.endpoint}",
                deadline,
            )
        except LLMTimeout:
            raise SparqlTransient(
                f"the SPARQL endpoint {self.endpoint} did not answer within {self.timeout_s:g} s "
                "(raise `timeout` in kb.sparql to allow more)"
            ) from None
        except LLMCancelled:
            raise
        except LLMError as error:
            raise _as_sparql_error(error) from None
        self._answered = True
        return body

    def _post(
        self,
        client: httpx.Client,
        query: str,
        accept: str,
        read: Callable[[Iterator[bytes]], Any] | None,
    ) -> Any:
        headers = {"Accept": accept}
        where = f"the SPARQL endpoint {self.endpoint}"
        try:
            with client.stream(
                "POST", self.endpoint, data={"query": query}, headers=headers
            ) as response:
                if read is not None and response.status_code < 400:
                    return read(response.iter_bytes())
                body = read_within(response.iter_bytes(), REPLY_CAP, where)
        except httpx.HTTPError as error:
            refused = f"no SPARQL endpoint answers at {self.endpoint} (is the server running?)"
            raise transport_error(error, where, self.timeout_s, refused, self._answered) from None
        except RuntimeError:  # httpx: another thread's stopped query closed the shared client
            if not client.is_closed:
                raise
            raise LLMTransient(f"{where}: the connection was closed by a stopped query") from None
        if response.status_code >= 400:
            raise status_error(response.status_code, bytes(body[:4096]), where)
        return body


def read_within(chunks: Iterator[bytes], cap: int, where: str) -> bytearray:
    """A streamed body of at most `cap` bytes; a longer one stops being read at the cap and is
    an error saying so (memory stays bounded by the cap)."""
    body = bytearray()
    for chunk in chunks:
        body += chunk
        if len(body) > cap:
            raise SparqlError(
                f"{where} sent more than {cap // 1_000_000:,} MB for one query; lower `page` and "
                "`batch` in kb.sparql to ask for less at a time"
            )
    return body


def _as_sparql_error(error: LLMError) -> SparqlError:
    """The LLM layer's classification of an HTTP failure, as the store's own error."""
    if isinstance(error, LLMUnavailable):
        return SparqlUnavailable(str(error))
    if isinstance(error, LLMTransient):
        return SparqlTransient(str(error))
    return SparqlError(str(error))


def parse_bindings(body: bytes | bytearray, endpoint: str) -> list[Binding]:
    """The `results.bindings` of a SPARQL JSON result; anything else is a one-line error."""
    return _json_result(body, endpoint)[1]


def _json_result(body: bytes | bytearray, endpoint: str) -> tuple[dict[str, Any], list[Binding]]:
    """A SPARQL JSON result, read once, and its `results.bindings` (checked)."""
    try:
        data: Any = json.loads(body)
    except ValueError:
        start = " ".join(body[:80].decode("utf-8", "replace").split())
        raise SparqlError(
            f"the SPARQL endpoint {endpoint} did not send a JSON result (it began {start!r})"
        ) from None
    bindings = data.get("results", {}).get("bindings") if isinstance(data, dict) else None
    if not isinstance(bindings, list) or not all(
        isinstance(row, dict) and all(_is_term(term) for term in row.values()) for row in bindings
    ):
        raise SparqlError(
            f"the SPARQL endpoint {endpoint} sent JSON that is not a SELECT result "
            "(no results.bindings list of terms)"
        )
    return data, bindings


@dataclass(frozen=True)
class Coded:
    """A result's rows as codes into its distinct cells (a walk's reply names each hub once per
    triple: coded, a row takes a few bytes rather than three strings)."""

    codes: np.ndarray  # (rows, variables), int32
    cells: list[str]

    def __len__(self) -> int:
        return len(self.codes)


def code_rows(rows: Iterable[list[str]], width: int) -> Coded:
    """`rows` of `width` cells, coded as they come."""
    index: dict[str, int] = {}
    codes = np.fromiter(
        (index.setdefault(cell, len(index)) for row in rows for cell in row), dtype=np.int32
    )
    return Coded(codes.reshape(-1, width), list(index))


def tsv_rows(body: bytes | bytearray, endpoint: str) -> tuple[Iterator[list[str]], int]:
    """The rows of a SPARQL TSV result, each as many cells as its header has variables, read
    as they are iterated; and that number. Anything else is a one-line error."""
    lines = _utf8(body, endpoint).split("\n")
    width = _tsv_width(lines[0], endpoint)
    if lines[-1] == "":
        lines.pop()  # the newline ending the last row
    return _tsv_cells(islice(lines, 1, None), width, 2, endpoint), width


def stream_tsv(
    chunks: Iterator[bytes], consume: Callable[[list[list[str]]], None], endpoint: str
) -> int:
    """`tsv_rows` over a reply read a chunk at a time: each chunk's whole rows go to
    `consume`; the number of rows."""
    width, pending, number = 0, b"", 2
    for chunk in chunks:
        pending += chunk
        cut = pending.rfind(b"\n")
        if cut < 0:
            continue
        lines, pending = _utf8(pending[:cut], endpoint).split("\n"), pending[cut + 1 :]
        if not width:
            width, lines = _tsv_width(lines[0], endpoint), lines[1:]
        consume(list(_tsv_cells(lines, width, number, endpoint)))
        number += len(lines)
    if pending or not width:  # a last line without its newline: a header alone, or a last row
        line = _utf8(pending, endpoint)
        if not width:
            _tsv_width(line, endpoint)  # nothing, or no header: not a TSV result
            return 0
        consume(list(_tsv_cells([line], width, number, endpoint)))
        number += 1
    return number - 2


def _utf8(body: bytes | bytearray, endpoint: str) -> str:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        raise SparqlError(
            f"the SPARQL endpoint {endpoint} sent a TSV result that is not UTF-8"
        ) from None


def _tsv_width(header_line: str, endpoint: str) -> int:
    """The number of variables a TSV header names; a line that is no header is an error."""
    header = header_line.removesuffix("\r").split("\t")
    if not all(variable.startswith("?") for variable in header):
        start = " ".join(header_line[:80].split())
        raise SparqlError(
            f"the SPARQL endpoint {endpoint} did not send a TSV result (it began {start!r})"
        )
    return len(header)


def _tsv_cells(lines: Iterable[str], width: int, first: int, endpoint: str) -> Iterator[list[str]]:
    """TSV `lines` (the first is line `first` of the reply) as rows of `width` cells."""
    for number, line in enumerate(lines, first):
        row = line.removesuffix("\r").split("\t")
        if len(row) != width:
            raise SparqlError(
                f"the SPARQL endpoint {endpoint} sent a TSV row of {len(row)} cells under "
                f"{width} variables (line {number})"
            )
        yield row


def json_rows(body: bytes | bytearray, endpoint: str) -> tuple[Iterator[list[str]], int]:
    """The rows of a SPARQL JSON result as `tsv_rows` gives a TSV one's."""
    data, bindings = _json_result(body, endpoint)
    head = data.get("head", {})
    variables = head.get("vars") if isinstance(head, dict) else None
    if not isinstance(variables, list) or not all(isinstance(v, str) for v in variables):
        raise SparqlError(f"the SPARQL endpoint {endpoint} sent a JSON result without head.vars")
    if not variables:
        raise SparqlError(f"the SPARQL endpoint {endpoint} sent a JSON result of no variables")
    rows = ([_cell(row.get(variable)) for variable in variables] for row in bindings)
    return rows, len(variables)


def _cell(term: dict[str, str] | None) -> str:
    """A JSON term as a TSV cell: its key, `_:` for a blank node, "" when unbound."""
    if term is None:
        return ""
    return term_key(term) or f"_:{term['value']}"


def _is_term(term: object) -> bool:
    return (
        isinstance(term, dict)
        and term.get("type") in {"uri", "literal", "typed-literal", "bnode"}
        and isinstance(term.get("value"), str)
    )


def bound(row: Binding, var: str, endpoint: str) -> dict[str, str]:
    """The term `row` binds to `?var`; a row leaving it unbound is a one-line error."""
    if var not in row:
        raise SparqlError(f"the SPARQL endpoint {endpoint} left ?{var} unbound in a result row")
    return row[var]


def count_value(row: Binding, endpoint: str) -> int:
    """The whole number `row` binds to `?n` (a COUNT)."""
    return count_of(bound(row, "n", endpoint)["value"], endpoint)


def count_of(value: str, endpoint: str) -> int:
    """The whole number `value` (a COUNT's lexical form, as JSON or TSV writes it) stands for."""
    if not value.isdigit() or len(value) > COUNT_DIGITS:
        shown = value[:40] + ("..." if len(value) > 40 else "")
        raise SparqlError(f"the SPARQL endpoint {endpoint} counted {shown!r}, not a count")
    return int(value)
