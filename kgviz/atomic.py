"""Atomic file writes: a reader sees the old file or the new one, never a torn one."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO


@contextmanager
def atomic_path(target: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside `target`; rename it over `target` if the block succeeds."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    tmp.chmod(0o644)  # mkstemp makes 0600; published files are ordinary readable files
    try:
        yield tmp
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_atomic(target: str | os.PathLike[str], write: Callable[[IO[bytes]], object]) -> None:
    """Call `write` with a binary file object, then atomically publish it as `target`."""
    with atomic_path(target) as tmp, open(tmp, "wb") as handle:
        write(handle)
        handle.flush()
        os.fsync(handle.fileno())


def write_text_atomic(target: str | os.PathLike[str], text: str) -> None:
    """Atomically write a UTF-8 text file."""
    write_atomic(target, lambda handle: handle.write(text.encode("utf-8")))
