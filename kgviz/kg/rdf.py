"""Read an RDF knowledge base (N-Triples `.nt` or Turtle `.ttl`) as named string triples.

Names, so that the graph reads like a `kb.tsv`:

- an IRI is named by its `rdfs:label` (English first, then untagged, then other languages; ties go
  to the alphabetically first), else by its local name: the text after the last `#` or `/`,
  percent-decoded, underscores kept;
- a blank node is named by its label, else `_:b1`, `_:b2`, ... in order of first appearance
  (rdflib's own blank node ids are random, so they are not used);
- a literal is named by its lexical form, trimmed (`""` when empty); a literal spelled like a
  node's name is that node, as in a `kb.tsv`;
- nodes (or predicates) sharing a name are never merged: each is renamed `name (local name)`, or
  `name (full IRI)` when the local names clash too.

Triples whose predicate is `rdfs:label` and whose object is a literal only give names; every
other triple (`rdf:type` too) is kept.

What is a name, and what is held to which limit:

- a *name* is what a node (IRI or blank node) at either end of a kept triple, or a predicate, is
  called: its label or its local name. Names are held to `KGVIZ_MAX_NAME_CHARS` (1,000), like the
  names of a `kb.tsv`. A label of a node in no kept triple names nothing and is not checked;
- a literal object (an `rdfs:comment`, a description, a date) is a *value*, not a name: it becomes
  an entity spelled as its lexical form, but is held only to `KGVIZ_MAX_LITERAL_CHARS` (10,000),
  the limit of every literal in the file;
- no name or value may hold a NUL character; other control characters are escaped when the
  graph is built (`kgviz.kg.vocab`);
- brackets may nest at most 32 levels (`kgviz.kg.rdf_bounds`).

Each limit is checked with the line it is broken on where the file says it (N-Triples always;
Turtle for literals and nesting).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping
from itertools import count
from pathlib import Path
from urllib.parse import unquote

from rdflib import RDFS, BNode, Graph, Literal, URIRef
from rdflib.exceptions import ParserError
from rdflib.plugins.parsers.notation3 import BadSyntax
from rdflib.plugins.parsers.ntriples import (
    DummySink,
    W3CNTriplesParser,
    r_literal,
    r_nodeid,
    r_tail,
    r_uriref,
    r_wspaces,
)
from rdflib.term import Node

from kgviz.errors import DataFormatError
from kgviz.kg.rdf_bounds import check_rdf_bounds
from kgviz.kg.readers import StringTriple, check_names, max_name_chars, open_text_lines
from kgviz.kg.vocab import visible

Statement = tuple[Node, Node, Node]


class _Collect(DummySink):
    """An N-Triples sink keeping each statement with the line it came from."""

    def __init__(self) -> None:
        super().__init__()
        self.line = 0
        self.statements: list[tuple[int, Statement]] = []

    def triple(self, s: Node, p: Node, o: Node) -> None:
        self.statements.append((self.line, (s, p, o)))


def _read_ntriples(path: Path) -> list[tuple[int, Statement]]:
    """Parse line by line, so that an error names its line (rdflib's own message does not)."""
    sink = _Collect()
    parser = W3CNTriplesParser(sink)
    blank_nodes: dict[str, BNode] = {}
    for number, line in open_text_lines(path):
        check_rdf_bounds(path, line, first_line=number)
        sink.line = number
        try:
            parser.parsestring(line, bnode_context=blank_nodes)
        except ParserError as error:
            raise DataFormatError(
                path, number, f"invalid N-Triples ({_nt_reason(error)})"
            ) from None
    return sink.statements


def _nt_reason(error: ParserError) -> str:
    """rdflib's reason for rejecting a line, with its regular expressions put in words."""
    reason = str(error.__context__ or error)  # the error itself only says "Invalid line"
    pattern, _, rest = reason.removeprefix("Failed to eat ").partition(" at ")
    expected = {
        r_tail.pattern: "' .' after the object",
        r_wspaces.pattern: "a space between terms",
        r_uriref.pattern: "an IRI like <http://...>",
        r_nodeid.pattern: "a blank node like _:b1",
        r_literal.pattern: 'a literal like "text", "text"@en or "1"^^<datatype>',
    }.get(pattern)
    if expected is None:
        return reason[:120]
    found = repr(rest.strip()[:40]) if rest.strip() else "the end of the line"
    return f"expected {expected}, found {found}"


def _read_turtle(path: Path) -> list[tuple[int, Statement]]:
    """Parse with rdflib, once the text keeps `check_rdf_bounds`; its syntax errors carry a
    line number."""
    for _ in open_text_lines(path):  # a line that is not UTF-8 is reported here
        pass
    text = path.read_text(encoding="utf-8-sig")
    check_rdf_bounds(path, text)
    graph = Graph(store="SimpleMemory")  # iterates in insertion order (the default store does not)
    try:
        graph.parse(data=text, format="turtle", publicID=path.resolve().as_uri())
    except BadSyntax as error:
        raise DataFormatError(path, error.lines + 1, f"invalid Turtle ({error._why})") from None
    except RecursionError:  # a construct the bounds do not count: still one line, not a crash
        raise DataFormatError(path, 0, "invalid Turtle: nested too deeply to parse") from None
    except (ParserError, IndexError, AssertionError, ValueError) as error:
        # rdflib crashes rather than reports on some errors, nearly always a cut-off last statement
        raise DataFormatError(
            path,
            len(text.rstrip().splitlines()),
            f"invalid Turtle, most likely an unfinished last statement ({error})",
        ) from None
    return [(0, statement) for statement in graph]


def local_name(iri: str) -> str:
    trimmed = iri.rstrip("#/")
    local = unquote(trimmed[max(trimmed.rfind("#"), trimmed.rfind("/")) + 1 :])
    return local or iri


def label_rank(text: str, language: str | None) -> tuple[int, str, str]:
    """How a label ranks among a node's labels (the least names it): English first, then
    English variants, untagged, other languages; ties to the alphabetically first."""
    lang = (language or "").lower()
    rank = 0 if lang == "en" else 1 if lang.startswith("en-") else 2 if not lang else 3
    return rank, lang, text


def _label_key(label: Literal) -> tuple[int, str, str]:
    return label_rank(str(label), label.language)


def unique_candidates(name: str, ident: str) -> Iterator[str]:
    """The names tried, in order, for a node whose name another node shares."""
    if local_name(ident) != name:
        yield f"{name} ({local_name(ident)})"
    yield f"{name} ({ident})"
    for number in count(2):  # only when another node is literally named like this one
        yield f"{name} ({ident}) ({number})"


def _unique_names(base: dict[Node, str], idents: dict[Node, str]) -> dict[Node, str]:
    """Keep unshared names; rename every node of a shared name, in order of its identity."""
    groups: dict[str, list[Node]] = defaultdict(list)
    for node, name in base.items():
        groups[name].append(node)
    names = {nodes[0]: name for name, nodes in groups.items() if len(nodes) == 1}
    taken = set(names.values())
    for name, nodes in groups.items():
        if len(nodes) == 1:
            continue
        for node in sorted(nodes, key=idents.__getitem__):
            names[node] = next(c for c in unique_candidates(name, idents[node]) if c not in taken)
            taken.add(names[node])
    return names


def node_names(idents: dict[Node, str], labels: Mapping[Node, list[Literal]]) -> dict[Node, str]:
    """The name of each node (or predicate) of `idents` (node -> its IRI or `_:b<n>`): its
    preferred label, else its local name, shared names made unique (the module's rules)."""

    def base_name(node: Node) -> str:  # escaped here already, so that no two names merge later
        if labels.get(node):
            return visible(str(min(labels[node], key=_label_key)).strip())
        return visible(idents[node] if isinstance(node, BNode) else local_name(str(node)))

    return _unique_names({node: base_name(node) for node in idents}, idents)


def literal_name(lexical: str) -> str:
    """The entity a literal is: its lexical form, trimmed (`""` when empty)."""
    return lexical.strip() or '""'


def read_rdf_triples(path: Path) -> list[StringTriple]:
    """The triples of an N-Triples (`.nt`) or else Turtle file, named as the module docstring says.

    Syntax errors, bytes that are not UTF-8, an empty graph and names or values beyond their
    limits are `DataFormatError`s naming the file (and the line where one is known).
    """
    path = Path(path)
    statements = _read_ntriples(path) if path.suffix == ".nt" else _read_turtle(path)
    labels: dict[Node, list[Literal]] = defaultdict(list)
    facts: list[tuple[int, Statement]] = []
    for line, (s, p, o) in statements:
        if p == RDFS.label and isinstance(o, Literal):
            if str(o).strip():
                labels[s].append(o)
        else:
            facts.append((line, (s, p, o)))
    if not facts:
        raise DataFormatError(path, 0, "holds no RDF triples (besides rdfs:label ones)")

    idents: dict[Node, str] = {}  # each node's stable identity: its IRI, or `_:b<n>`
    blank = count(1)
    for _, (s, _, o) in facts:
        for node in (s, o):
            if isinstance(node, BNode) and node not in idents:
                idents[node] = f"_:b{next(blank)}"
            elif isinstance(node, URIRef):
                idents[node] = str(node)

    entities = node_names(idents, labels)
    relations = node_names({p: str(p) for _, (_, p, _) in facts}, labels)

    def entity(node: Node) -> str:
        return entities[node] if node in entities else literal_name(str(node))

    longest = max_name_chars()
    triples = []
    for line, (s, p, o) in facts:
        triple = (entity(s), relations[p], entity(o))
        if isinstance(o, Literal):  # a value, held to the literal limit (`check_rdf_bounds`)
            check_names(path, line, triple[:2], longest)
            check_names(path, line, triple[2:])
        else:
            check_names(path, line, triple, longest)
        triples.append(triple)
    return triples
