"""Atomic file writes: a reader sees the old file or the new one, never a torn one.

A write that fails (disk full, file too large, I/O error, a file where a folder should be) is
one `WriteError` naming the file and saying what was kept; no temporary file is left behind.
"""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from functools import partial
from pathlib import Path
from typing import IO

from kgviz.errors import StoreError


class WriteError(StoreError):
    """A file could not be written; the file it would have replaced is unchanged."""

    def __init__(self, target: Path, error: OSError, kept: str | None = None) -> None:
        self.target = target
        reason = error.strerror or str(error) or type(error).__name__
        if isinstance(error, NotADirectoryError) and error.filename:
            reason += f" ({error.filename} is a file)"
        if kept is None:
            kept = "nothing was written"
            if target.is_file():
                kept = f"the earlier {target.name} is kept"
        super().__init__(f"could not write {target}: {reason}; {kept}")


def _make_parent(target: Path) -> None:
    """Create `target`'s folder; a file in the way is "Not a directory", naming that file
    (mkdir says "File exists" when the folder itself is a file)."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        in_the_way = next(p for p in (target.parent, *target.parent.parents) if p.exists())
        raise NotADirectoryError(errno.ENOTDIR, "Not a directory", str(in_the_way)) from None


@contextmanager
def atomic_path(target: str | os.PathLike[str], kept: str | None = None) -> Iterator[Path]:
    """Yield a temporary path beside `target`; rename it over `target` if the block succeeds.
    An `OSError` on the way (the block's writes included) is a `WriteError` whose message ends
    with `kept` (default: whether an earlier file is kept)."""
    target = Path(target)
    tmp: Path | None = None
    try:
        _make_parent(target)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        os.close(fd)
        tmp = Path(tmp_name)
        tmp.chmod(0o644)  # mkstemp makes 0600; published files are ordinary readable files
        yield tmp
        os.replace(tmp, target)
    except OSError as error:
        raise WriteError(target, error, kept) from None
    finally:
        if tmp is not None:
            tmp.unlink(missing_ok=True)


def _write_synced(path: Path, write: Callable[[IO[bytes]], object]) -> None:
    """Call `write` with `path` opened for binary writing, then flush it to the disk."""
    with open(path, "wb") as handle:
        write(handle)
        handle.flush()
        os.fsync(handle.fileno())


def write_atomic(
    target: str | os.PathLike[str], write: Callable[[IO[bytes]], object], kept: str | None = None
) -> None:
    """Call `write` with a binary file object, then atomically publish it as `target`."""
    with atomic_path(target, kept) as tmp:
        _write_synced(tmp, write)


def write_text_atomic(target: str | os.PathLike[str], text: str, kept: str | None = None) -> None:
    """Atomically write a UTF-8 text file."""
    write_atomic(target, lambda handle: handle.write(text.encode("utf-8")), kept)


def _write_all(handle: IO[bytes], data: bytes) -> None:
    handle.write(data)


def write_files_atomic(files: Mapping[Path, bytes], kept: str | None = None) -> None:
    """Write every file in full beside its target, then rename them over their targets (the last
    first): a write that fails publishes none of them (a `WriteError` naming its target)."""
    with ExitStack() as staged:
        for target, data in files.items():
            tmp = staged.enter_context(atomic_path(target, kept))
            try:
                _write_synced(tmp, partial(_write_all, data=data))
            except OSError as error:
                raise WriteError(target, error, kept) from None
