"""Results files: JSON lines read with their line numbers, and appended by their one writer.

`ResultsWriter` holds the file's lock (`writer_lock`), reads what is there, cuts a torn last
line, and appends each row whole and synced. Before each append it checks that the path still
names the file it holds (an editor's save renames a new file over it) and that the file ends
in a newline. A row that cannot be written (full disk, file-size limit, I/O error) is taken
back to the last whole line and the run stops with one line; the next run resumes from there.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from types import TracebackType
from typing import Self, cast

from kgviz.errors import DataFormatError, RunStoreError
from kgviz.eval.rows import ResultRow, row_problem
from kgviz.eval.writer_lock import sole_writer

log = logging.getLogger(__name__)


def parse_results(text: str, path: Path, skip_foreign: bool = False) -> tuple[list[ResultRow], int]:
    """The rows of a results file's `text`, and how many bytes of it are whole lines: all of
    it, but for a torn last line (left by a run killed mid-write), which is no row. A line that
    is no row is an error naming it, or, with `skip_foreign` (a run resuming), skipped with a
    warning and left in the file."""
    rows: list[ResultRow] = []
    lines = text.split("\n")
    offset = 0
    for number, line in enumerate(lines, start=1):
        start, offset = offset, offset + len(line.encode("utf-8")) + 1
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            if number == len(lines):  # only a final line without its newline may be torn
                return rows, start
            row = None
        try:
            rows.append(checked_row(row, path, number))
        except DataFormatError as error:
            if not skip_foreign:
                raise
            log.warning("kgviz: %s; left in the file, skipped", error)
    return rows, len(text.encode("utf-8"))


def checked_row(row: object, path: Path, number: int) -> ResultRow:
    """`row` (line `number` of `path`, parsed; None when it is no JSON) as a results row."""
    if row is None:
        raise DataFormatError(path, number, "not a JSON results line")
    if not (
        isinstance(row, dict)
        and isinstance(row.get("method"), str)
        and isinstance(row.get("qid"), str)
    ):
        raise DataFormatError(
            path,
            number,
            "not a results row (an object with 'method' and 'qid' strings, as `kgviz eval` writes)",
        )
    problem = row_problem(row)
    if problem is not None:
        raise DataFormatError(path, number, f"a results row whose {problem}")
    return cast(ResultRow, row)


def read_results(path: Path) -> list[ResultRow]:
    """Rows already written (none for a missing file); a torn last line is dropped."""
    if not path.is_file():
        return []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise RunStoreError(f"cannot read results {path}: {error}") from error
    return parse_results(text, path)[0]


def row_line(row: ResultRow) -> bytes:
    return (json.dumps(row, ensure_ascii=False) + "\n").encode("utf-8")


class ResultsWriter:
    """The one writer of a results file for a run (a context manager); `rows` are the rows the
    file held when the run began, then every row appended."""

    def __init__(self, path: Path, what: str = "kgviz eval") -> None:
        self.path = path
        self.what = what
        self.rows: list[ResultRow] = []
        self._stack = ExitStack()
        self._fd = -1
        self._identity = (0, 0)

    def __enter__(self) -> Self:
        self._fd = self._stack.enter_context(sole_writer(self.path, self.what))
        stat = os.fstat(self._fd)
        self._identity = (stat.st_dev, stat.st_ino)
        try:
            text = os.pread(self._fd, stat.st_size, 0).decode("utf-8")
        except UnicodeDecodeError as error:
            self._stack.close()
            raise RunStoreError(f"{self.path} is not a UTF-8 results file ({error})") from error
        try:
            self.rows, whole = parse_results(text, self.path, skip_foreign=True)
        except BaseException:
            self._stack.close()
            raise
        if whole < stat.st_size:  # a torn last line: cut it (this run is the only writer)
            self._guard(lambda: os.ftruncate(self._fd, whole), whole)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._stack.close()

    def append(self, row: ResultRow) -> None:
        """Write `row` as one whole, synced line, after checking the file is still ours."""
        self._check_still_named()
        size = os.fstat(self._fd).st_size
        data = row_line(row)
        if size and os.pread(self._fd, 1, size - 1) != b"\n":
            data = b"\n" + data  # someone appended a line without its newline: end it

        def write() -> None:
            written = 0
            while written < len(data):
                written += os.write(self._fd, data[written:])
            os.fsync(self._fd)

        self._guard(write, size)
        self.rows.append(row)

    def _check_still_named(self) -> None:
        try:
            stat = os.stat(self.path)
            now = (stat.st_dev, stat.st_ino)
        except OSError:
            now = None
        if now != self._identity:
            raise RunStoreError(
                f"{self.path} was replaced or removed while this run wrote it; stopped with "
                f"{len(self.rows)} row(s) written: run the same command again to resume"
            )

    def _guard(self, action: Callable[[], object], size: int) -> None:
        """Run `action()`; on a write failure take the file back to `size` bytes (whole lines)
        and stop with one line naming the file and what was kept."""
        try:
            action()
        except OSError as error:
            try:
                os.ftruncate(self._fd, size)
            except OSError:
                pass  # the line stays torn; the next run's reader drops it
            raise RunStoreError(
                f"cannot write to {self.path}: {error.strerror or error}; its {len(self.rows)} "
                "whole row(s) are kept: make room and run the same command again to resume"
            ) from error
