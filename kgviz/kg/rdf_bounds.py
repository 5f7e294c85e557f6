"""Bounds an RDF text must keep before a parser reads it: how deeply `[...]` and `(...)` nest and
how long a literal is, each refused with its line (rdflib recurses per nesting level and would
die of a RecursionError near 150 levels; a multi-megabyte literal is no KG name or value)."""

from __future__ import annotations

import re
from pathlib import Path

from kgviz.errors import DataFormatError
from kgviz.kg.readers import env_limit

MAX_NESTING = 32
MAX_LITERAL_ENV = "KGVIZ_MAX_LITERAL_CHARS"
DEFAULT_MAX_LITERAL_CHARS = 10_000

# The Turtle tokens that matter here (N-Triples is a subset): comments, IRIs and strings, whose
# insides never count, and the brackets that nest.
_TOKENS = re.compile(
    r"""
      (?<!\\)\#[^\n]*                          # a comment (not an escaped \# of a local name)
    | <[^<>"{}|^`\\\s]*>                       # an IRI
    | (?P<long>\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"|'''(?:[^'\\]|\\.|'(?!''))*''')
    | (?P<short>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
    | (?P<open>[\[({])
    | (?P<close>[\])}])
    """,
    re.VERBOSE | re.DOTALL,
)


def max_literal_chars() -> int:
    """The longest literal accepted, as written (`KGVIZ_MAX_LITERAL_CHARS`, default 10,000)."""
    return env_limit(MAX_LITERAL_ENV, DEFAULT_MAX_LITERAL_CHARS)


def check_rdf_bounds(path: Path, text: str, first_line: int = 1) -> None:
    """A `DataFormatError` at the line where `text` (which starts at line `first_line` of
    `path`) nests deeper than `MAX_NESTING` or holds a literal longer than `max_literal_chars()`
    (counted as written, quotes left out)."""
    longest = max_literal_chars()
    depth = position = 0
    line = first_line - 1
    for token in _TOKENS.finditer(text):
        line += text.count("\n", position, token.start())
        position = token.start()
        literal = token["long"] or token["short"]
        if literal is not None:
            size = len(literal) - (6 if token["long"] else 2)
            if size > longest:
                raise DataFormatError(
                    path,
                    line + 1,
                    f"a literal of {size:,} characters (the limit is {longest:,}; set "
                    f"{MAX_LITERAL_ENV} to raise it)",
                )
        elif token["open"]:
            depth += 1
            if depth > MAX_NESTING:
                raise DataFormatError(
                    path,
                    line + 1,
                    f"brackets nested more than {MAX_NESTING} levels deep; kgviz reads at most "
                    f"{MAX_NESTING}",
                )
        elif token["close"]:
            depth = max(depth - 1, 0)
