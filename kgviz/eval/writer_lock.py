"""One results file, one writer: an advisory lock on the file itself, held for a whole run.

The lock is taken on the open file (flock), so it belongs to the file's identity (device and
inode), not to the name it was given: a second writer through a symlink or a hard link is
refused like one through the same path. The holder is named in a note kept under the cache
folder by that identity too.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kgviz.errors import RunStoreError
from kgviz.paths import cache_root
from kgviz.storage.exclusive_lock import holder_line


def holder_note(fd: int) -> Path:
    """The note naming the writer of the open file `fd`, by the file's device and inode."""
    stat = os.fstat(fd)
    return cache_root() / "writers" / f"{stat.st_dev}-{stat.st_ino}"


def open_results(out: Path) -> int:
    """A read-write, appending descriptor of `out` (created if absent); one-line errors."""
    if out.is_dir():
        raise RunStoreError(f"{out} is a folder; give a results file such as {out / 'r.jsonl'}")
    blocking = next((p for p in out.parents if p.exists() and not p.is_dir()), None)
    if blocking is not None:
        raise RunStoreError(
            f"cannot write results to {out}: {blocking} is a file, not a folder; give another "
            "--out path or move that file"
        )
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        return os.open(out, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
    except OSError as error:
        raise RunStoreError(f"cannot write results to {out}: {error.strerror}") from error


@contextmanager
def sole_writer(out: Path, what: str = "kgviz eval") -> Iterator[int]:
    """Hold the lock of `out`'s file for the block and yield its descriptor (reading and
    appending); a second writer is refused at once with a line naming the holder. The lock goes
    with the process, so a killed run leaves none behind."""
    fd = open_results(out)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RunStoreError(
                f"{out} is being written by {_holder(fd)}; wait for that run to end "
                "or write to another --out file"
            ) from None
        note = _note_holder(fd, what)
        try:
            yield fd
        finally:
            note.unlink(missing_ok=True)
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _holder(fd: int) -> str:
    try:
        return holder_note(fd).read_text(encoding="utf-8").strip() or "another process"
    except (OSError, UnicodeDecodeError):
        return "another process"


def _note_holder(fd: int, what: str) -> Path:
    """Name this process in the holder note (best effort: the lock itself is what counts, and a
    note that cannot be written only leaves a second writer told of "another process")."""
    note = holder_note(fd)
    try:
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text(holder_line(what), encoding="utf-8")
    except OSError:
        pass
    return note
