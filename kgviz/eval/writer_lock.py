"""One results file, one writer: an advisory lock held for a whole evaluation run."""

from __future__ import annotations

import fcntl
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kgviz.errors import KgvizError


def lock_path(out: Path) -> Path:
    """The lock file beside a results file (`.r.jsonl.lock` for `r.jsonl`)."""
    return out.with_name(f".{out.name}.lock")


@contextmanager
def sole_writer(out: Path) -> Iterator[None]:
    """Hold the advisory lock of `out` for the block; a second writer is refused at once with a
    line naming the holder. The lock goes with the process, so a killed run leaves none behind."""
    path = lock_path(out)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as error:
        raise KgvizError(f"cannot write results to {out}: {error.strerror}") from error
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "another process"
            raise KgvizError(
                f"{out} is being written by {holder}; wait for that run to end "
                "or write to another --out file"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(
            fd,
            (
                f"kgviz eval (pid {os.getpid()} on {socket.gethostname()}, since "
                f"{time.strftime('%Y-%m-%d %H:%M:%S')})"
            ).encode(),
            0,
        )
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
