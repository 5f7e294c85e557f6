"""One results file, one writer: an advisory lock on the file itself, held for a whole run.

The lock is taken on the open file (flock), so it belongs to the file's identity (device and
inode), not to the name it was given: a second writer through a symlink or a hard link is
refused like one through the same path. The holder is named in a note beside the file.
"""

from __future__ import annotations

import fcntl
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kgviz.errors import KgvizError


def holder_note(out: Path) -> Path:
    """The note naming the writer, beside the file a path resolves to (`.r.jsonl.lock`)."""
    real = out.resolve()
    return real.with_name(f".{real.name}.lock")


def open_results(out: Path) -> int:
    """A read-write, appending descriptor of `out` (created if absent); one-line errors."""
    if out.is_dir():
        raise KgvizError(f"{out} is a folder; give a results file such as {out / 'r.jsonl'}")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        return os.open(out, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
    except OSError as error:
        raise KgvizError(f"cannot write results to {out}: {error.strerror}") from error


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
            raise KgvizError(
                f"{out} is being written by {_holder(out)}; wait for that run to end "
                "or write to another --out file"
            ) from None
        _note_holder(out, what)
        yield fd
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _holder(out: Path) -> str:
    try:
        return holder_note(out).read_text(encoding="utf-8").strip() or "another process"
    except (OSError, UnicodeDecodeError):
        return "another process"


def _note_holder(out: Path, what: str) -> None:
    """Name this process in the holder note (best effort: the lock itself is what counts)."""
    note = (
        f"{what} (pid {os.getpid()} on {socket.gethostname()}, since "
        f"{time.strftime('%Y-%m-%d %H:%M:%S')})"
    )
    try:
        holder_note(out).write_text(note, encoding="utf-8")
    except OSError:
        pass
