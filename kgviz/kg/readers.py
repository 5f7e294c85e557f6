"""Readers for triple files; every malformed line is reported with its file and line number."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from kgviz.errors import DataFormatError, MissingDataError

TripleFormat = Literal["pipe", "tsv", "auto"]
StringTriple = tuple[str, str, str]


def open_text_lines(path: Path) -> Iterator[tuple[int, str]]:
    """Yield `(line_number, line)` without the line ending, skipping blank lines."""
    if not path.is_file():
        raise MissingDataError(f"file not found: {path}")
    with open(path, encoding="utf-8", newline="") as handle:
        for number, raw in enumerate(handle, start=1):
            line = raw.rstrip("\r\n")
            if line.strip():
                yield number, line


def _separator(line: str, fmt: TripleFormat) -> str:
    if fmt == "pipe":
        return "|"
    if fmt == "tsv":
        return "\t"
    return "\t" if "\t" in line else "|"


def parse_triple_line(line: str, separator: str) -> StringTriple | None:
    """Split one line into a triple with non-empty fields, or return None when it is not one."""
    parts = line.split(separator)
    if len(parts) != 3:
        return None
    head, relation, tail = (part.strip() for part in parts)
    if not (head and relation and tail):
        return None
    return head, relation, tail


def read_triples(path: str | Path, fmt: TripleFormat = "auto") -> Iterator[StringTriple]:
    """Read `head|relation|tail` (MetaQA) or `head<TAB>relation<TAB>tail` lines.

    With `fmt="auto"` the separator is chosen from the first non-blank line and kept for the file.
    """
    path = Path(path)
    separator: str | None = None
    for number, line in open_text_lines(path):
        if separator is None:
            separator = _separator(line, fmt)
        triple = parse_triple_line(line, separator)
        if triple is None:
            shown = "TAB" if separator == "\t" else separator
            raise DataFormatError(
                path, number, f"expected 3 non-empty fields separated by {shown!r}, got {line[:120]!r}"
            )
        yield triple
