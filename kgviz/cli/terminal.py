"""What kgviz prints stays text: control characters in questions, replies, names or errors (an
escape sequence that recolours the terminal, sets its title or rings its bell) are shown as their
escapes (`\\x1b`, `\\x07`), as `repr` would, instead of reaching the terminal raw; tabs, line
breaks and carriage returns (progress bars) pass.

>>> visible("who directed \\x1b[31mJaws\\x07")
'who directed \\\\x1b[31mJaws\\\\x07'
>>> json_visible('{"q": "a\\x9bb"}')
'{"q": "a\\\\u009bb"}'
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
RAW_IN_JSON = re.compile(r"[\x7f-\x9f]")  # json.dumps escapes the others itself


def visible(text: str) -> str:
    """`text` with each control character but tab, line break and carriage return escaped."""
    return CONTROL.sub(lambda match: repr(match.group())[1:-1], text)


def json_visible(text: str) -> str:
    """JSON text (from `json.dumps(..., ensure_ascii=False)`) with DEL and the C1 controls
    written as `\\u` escapes, so it stays the same JSON and holds no control character."""
    return RAW_IN_JSON.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


class VisibleStream(io.TextIOBase):
    """A text stream writing `visible(text)` to `inner`."""

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner

    def write(self, text: str) -> int:
        self.inner.write(visible(text))
        return len(text)

    def flush(self) -> None:
        self.inner.flush()

    def isatty(self) -> bool:
        return self.inner.isatty()

    def fileno(self) -> int:
        return self.inner.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.inner, "encoding", "utf-8")


@contextmanager
def visible_output() -> Iterator[None]:
    """Within it, everything written to stdout and stderr goes through `visible`."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = VisibleStream(saved[0]), VisibleStream(saved[1])
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
