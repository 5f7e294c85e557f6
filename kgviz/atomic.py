"""Atomic file writes: a reader sees the old file or the new one, never a torn one."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
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


def _write_synced(path: Path, write: Callable[[IO[bytes]], object]) -> None:
    """Call `write` with `path` opened for binary writing, then flush it to the disk."""
    with open(path, "wb") as handle:
        write(handle)
        handle.flush()
        os.fsync(handle.fileno())


def _write_bytes(path: Path, data: bytes) -> None:
    _write_synced(path, lambda handle: handle.write(data))


def write_atomic(target: str | os.PathLike[str], write: Callable[[IO[bytes]], object]) -> None:
    """Call `write` with a binary file object, then atomically publish it as `target`."""
    with atomic_path(target) as tmp:
        _write_synced(tmp, write)


def write_text_atomic(target: str | os.PathLike[str], text: str) -> None:
    """Atomically write a UTF-8 text file."""
    write_atomic(target, lambda handle: handle.write(text.encode("utf-8")))


def write_files_atomic(files: Mapping[Path, bytes]) -> None:
    """Write every file in full beside its target, then rename them over their targets (the last
    first): a write that fails publishes none of them, and its `OSError` names its target."""
    with ExitStack() as staged:
        for target, data in files.items():
            tmp = staged.enter_context(atomic_path(target))
            try:
                _write_bytes(tmp, data)
            except OSError as error:
                raise OSError(error.errno, error.strerror, str(target)) from error
