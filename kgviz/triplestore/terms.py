"""RDF terms of SPARQL JSON results as keys in SPARQL syntax, and the query texts kgviz sends.

A term's key is how a query writes it (`<iri>`, `"text"@en`, `"1"^^<datatype>`), kept exactly as
the endpoint gave it: no literal is normalised, so a key sent back in a `VALUES` block matches
the stored term. Blank nodes have no key (an endpoint's blank node labels do not survive from one
query to the next), so triples with a blank node are left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

XSD = "http://www.w3.org/2001/XMLSchema#"
XSD_STRING = f"{XSD}string"
LITERALS = ("literal", "typed-literal")  # the JSON result types of a literal
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
# Other control characters as \uXXXX, which SPARQL reads back: a key is always one printable line.
_LITERAL = str.maketrans(
    {**{chr(c): f"\\u{c:04X}" for c in [*range(0x20), *range(0x7F, 0xA0)]}, **_ESCAPES}
)
_IRI_ODD = '<>"{}|^`\\' + "".join(map(chr, range(0x21)))
_IRI = str.maketrans({c: f"\\u{ord(c):04X}" for c in _IRI_ODD})
_IRI_NEEDS_ESCAPES = re.compile(f"[{re.escape(_IRI_ODD)}]").search


def iri_key(iri: str) -> str:
    """`<iri>`, with the characters an IRI may not hold written as \\uXXXX."""
    return f"<{iri.translate(_IRI)}>" if _IRI_NEEDS_ESCAPES(iri) else f"<{iri}>"


def term_key(term: dict[str, str]) -> str | None:
    """The SPARQL spelling of a JSON result term; None for a blank node."""
    kind, value = term["type"], term["value"]
    if kind == "uri":
        return iri_key(value)
    if kind == "bnode":
        return None
    text = f'"{value.translate(_LITERAL)}"'
    if term.get("xml:lang"):
        return f"{text}@{term['xml:lang']}"
    datatype = term.get("datatype")
    return f"{text}^^<{datatype}>" if datatype and datatype != XSD_STRING else text


# A literal TSV writes bare (SPARQL's short forms), and its datatype.
_BARE_LITERALS = (
    (re.compile(r"[+-]?\d+\Z"), "integer"),
    (re.compile(r"[+-]?\d*\.\d+\Z"), "decimal"),
    (re.compile(r"[+-]?(\d+\.?\d*|\.\d+)[eE][+-]?\d+\Z"), "double"),
    (re.compile(r"(true|false)\Z"), "boolean"),
)
_TSV_ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))", re.DOTALL)
_TSV_ECHARS = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'"}


def _unescaped(text: str) -> str:
    """`text` with SPARQL's escapes (`\\n`, `\\"`, `\\u00E9`, ...) read."""

    def one(match: re.Match[str]) -> str:
        short, long, char = match.groups()
        if short or long:
            return chr(int(short or long, 16))
        return _TSV_ECHARS.get(char, char)  # `\\` is a backslash

    return _TSV_ESCAPE.sub(one, text) if "\\" in text else text


def iri_of(key: str) -> str:
    """The IRI of an IRI's key (`iri_key` undone)."""
    return _unescaped(key[1:-1])


def literal_parts(key: str) -> tuple[str, str | None]:
    """The lexical form and language tag (None when untagged) of a literal's key."""
    end = key.rindex('"')
    suffix = key[end + 1 :]
    return _unescaped(key[1:end]), suffix[1:] if suffix.startswith("@") else None


def tsv_key(cell: str) -> str | None:
    """The key (`term_key`) of a term as a SPARQL TSV result writes it; None for a blank node
    or an unbound cell. Raises `ValueError` for a cell that is no term."""
    if not cell or cell.startswith("_:"):
        return None
    if cell[0] == "<" and cell[-1] == ">":
        if "\\" not in cell and not _IRI_NEEDS_ESCAPES(cell, 1, len(cell) - 1):
            return cell  # a plain IRI is written as its key
        return iri_key(_unescaped(cell[1:-1]))
    if cell[0] == '"':
        end = cell.rindex('"')
        if end == 0:
            raise ValueError(f"an unclosed literal {cell[:80]!r}")
        text, suffix = _unescaped(cell[1:end]), cell[end + 1 :]
        if suffix == f"^^<{XSD_STRING}>":
            suffix = ""
        elif suffix and not suffix.startswith(("@", "^^<")):
            raise ValueError(f"a literal followed by {suffix[:40]!r}")
        return f'"{text.translate(_LITERAL)}"{suffix}'
    for pattern, datatype in _BARE_LITERALS:
        if pattern.match(cell):
            return f'"{cell}"^^<{XSD}{datatype}>'
    raise ValueError(f"no RDF term: {cell[:80]!r}")


@dataclass(frozen=True)
class Queries:
    """The SELECT queries over one endpoint's KG: its named graph (or the default graph) and its
    label predicate, whose triples with a literal object give names and are not edges."""

    graph: str | None = None
    label: str = RDFS_LABEL
    # whether the KG may hold blank nodes: testing each triple for them makes a scan of the
    # whole KG many times slower (15x on Oxigraph), so the name store's listings first go
    # without the test, and repeat with it only if a blank node shows up
    blank_nodes: bool = True

    @property
    def _from(self) -> str:
        return f"FROM {iri_key(self.graph)} " if self.graph else ""

    def _kept(self, s: str, p: str, o: str) -> str:
        """A triple kgviz keeps as an edge: no blank node, not a label."""
        not_label = f"({p} != {iri_key(self.label)} || !isLiteral({o}))"
        if not self.blank_nodes:
            return f"FILTER{not_label}"
        return f"FILTER(!isBlank({s}) && !isBlank({o}) && {not_label})"

    def count(self) -> str:
        """How many triples kgviz keeps (`_kept`)."""
        kept = self._kept("?s", "?p", "?o")
        return f"SELECT (COUNT(*) AS ?n) {self._from}WHERE {{ ?s ?p ?o {kept} }}"

    def count_all(self) -> str:
        """How many triples the KG holds, labels and all (cheap: no test per triple)."""
        return f"SELECT (COUNT(*) AS ?n) {self._from}WHERE {{ ?s ?p ?o }}"

    @staticmethod
    def _page(limit: int, offset: int, ordered: str | None) -> str:
        """A page of results: ordered by `ordered` when a listing spans several pages."""
        order = f"ORDER BY {ordered} " if ordered else ""
        return f"{order}LIMIT {limit} OFFSET {offset}"

    def predicates(self, limit: int, offset: int, ordered: bool) -> str:
        kept = self._kept("?s", "?x", "?o")
        page = self._page(limit, offset, "?x" if ordered else None)
        return f"SELECT DISTINCT ?x {self._from}WHERE {{ ?s ?x ?o {kept} }} {page}"

    def subjects(self, limit: int, offset: int, ordered: bool) -> str:
        kept = self._kept("?x", "?p", "?o")
        page = self._page(limit, offset, "?x" if ordered else None)
        return f"SELECT DISTINCT ?x {self._from}WHERE {{ ?x ?p ?o {kept} }} {page}"

    def objects(self, limit: int, offset: int, ordered: bool) -> str:
        kept = self._kept("?s", "?p", "?x")
        page = self._page(limit, offset, "?x" if ordered else None)
        return f"SELECT DISTINCT ?x {self._from}WHERE {{ ?s ?p ?x {kept} }} {page}"

    def labels(self, limit: int, offset: int, ordered: bool) -> str:
        """Every triple of the label predicate (the reader keeps IRIs named by literals)."""
        page = self._page(limit, offset, "?x ?l" if ordered else None)
        return f"SELECT ?x ?l {self._from}WHERE {{ ?x {iri_key(self.label)} ?l }} {page}"

    def incident(self, keys: Iterable[str], limit: int) -> str:
        """The kept triples with one of `keys` at either end (at most `limit`)."""
        values = " ".join(keys)
        return (
            f"SELECT ?s ?p ?o {self._from}WHERE {{ "
            f"{{ VALUES ?s {{ {values} }} ?s ?p ?o }} UNION "
            f"{{ VALUES ?o {{ {values} }} ?s ?p ?o }} {self._kept('?s', '?p', '?o')} }} "
            f"LIMIT {limit}"
        )

    def degrees(self, keys: Iterable[str]) -> str:
        """How many kept triples touch each of `keys` (a self-loop counts twice)."""
        values = " ".join(keys)
        return (
            f"SELECT ?x (COUNT(*) AS ?n) {self._from}WHERE {{ "
            f"{{ VALUES ?x {{ {values} }} ?x ?p ?o {self._kept('?x', '?p', '?o')} }} UNION "
            f"{{ VALUES ?x {{ {values} }} ?s ?q ?x {self._kept('?s', '?q', '?x')} }} }} GROUP BY ?x"
        )
