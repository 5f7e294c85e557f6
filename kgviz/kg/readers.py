"""Readers for triple files; every malformed line is reported with its file and line number."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Literal

from kgviz.errors import DataFormatError, InputError, MissingDataError

TripleFormat = Literal["pipe", "tsv", "auto"]
StringTriple = tuple[str, str, str]


MAX_NAME_ENV = "KGVIZ_MAX_NAME_CHARS"
DEFAULT_MAX_NAME_CHARS = 1000


def env_limit(name: str, default: int) -> int:
    """A size limit from the environment variable `name`, else `default`."""
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    if not value.isdigit() or int(value) < 1:
        raise InputError(f"{name} must be a whole number of at least 1, got {value!r}")
    return int(value)


def max_name_chars() -> int:
    """The longest entity or relation name accepted (`KGVIZ_MAX_NAME_CHARS`, default 1,000)."""
    return env_limit(MAX_NAME_ENV, DEFAULT_MAX_NAME_CHARS)


def check_names(path: Path, line: int, names: Iterable[str], longest: int | None = None) -> None:
    """A `DataFormatError` at `line` when one of `names` is longer than `longest` (if given) or
    holds a NUL character."""
    for name in names:
        if longest is not None and len(name) > longest:
            raise DataFormatError(
                path,
                line,
                f"a name of {len(name):,} characters ({name[:40]!r}...; the limit is "
                f"{longest:,}; set {MAX_NAME_ENV} to raise it)",
            )
        if "\0" in name:
            raise DataFormatError(
                path, line, f"a name holds a NUL character (\\x00 in {name[:60]!r})"
            )


def require_file(path: Path) -> None:
    """A one-line error unless `path` is a file: `MissingDataError` when nothing is there, a
    `DataFormatError` saying what is there otherwise."""
    if path.is_file():
        return
    if path.is_dir():
        raise DataFormatError(path, 0, "is a folder, not a file")
    if path.exists():
        raise DataFormatError(path, 0, "is not a regular file")
    raise MissingDataError(f"file not found: {path}")


def open_text_lines(path: Path) -> Iterator[tuple[int, str]]:
    """Yield `(line_number, line)` of a UTF-8 text file without line endings, skipping blank
    lines and a leading byte-order mark. A line that is not UTF-8 is a `DataFormatError`."""
    if path.is_dir():
        raise DataFormatError(path, 0, "is a folder, not a file")
    if not path.is_file():
        raise MissingDataError(f"file not found: {path}")
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError as error:
                raise DataFormatError(
                    path,
                    number,
                    f"not UTF-8 text (byte 0x{raw[error.start]:02x} at column "
                    f"{error.start + 1}); save the file as UTF-8",
                ) from None
            if number == 1:
                line = line.removeprefix("\ufeff")
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
    A file without a triple is a `DataFormatError`.
    """
    path = Path(path)
    separator: str | None = None
    longest = max_name_chars()
    for number, line in open_text_lines(path):
        if separator is None:
            separator = _separator(line, fmt)
        triple = parse_triple_line(line, separator)
        if triple is None:
            shown = "TAB" if separator == "\t" else separator
            raise DataFormatError(
                path,
                number,
                f"expected 3 non-empty fields separated by {shown!r}, got {line[:120]!r}",
            )
        check_names(path, number, triple, longest)
        yield triple
    if separator is None:
        raise DataFormatError(path, 0, "holds no triples (the file is empty)")
