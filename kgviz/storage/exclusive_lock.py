"""One holder at a time: an advisory lock file that names who holds it.

The lock is `flock` on the file and goes with the process, so a killed holder leaves a stale
file whose lock the next one takes over (rewriting the holder line).
"""

from __future__ import annotations

import fcntl
import os
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from kgviz.errors import StoreError


def holder_line(command: str) -> str:
    """What a lock file says about its holder: the command, pid, host and start time."""
    return (
        f"{command} (pid {os.getpid()} on {socket.gethostname()}, since "
        f"{time.strftime('%Y-%m-%d %H:%M:%S')})"
    )


@contextmanager
def exclusive_lock(
    path: Path,
    command: str,
    refused: Callable[[str], str],
    unwritable: Callable[[OSError], str],
) -> Iterator[None]:
    """Hold the lock of `path` for the block, the file naming `command` as its holder. A second
    holder is refused at once: `StoreError(refused(the first's holder line))`; a lock file that
    cannot be made is `StoreError(unwritable(error))`."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as error:
        raise StoreError(unwritable(error)) from error
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 500, 0).decode("utf-8", "replace").strip() or "another process"
            raise StoreError(refused(holder)) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, holder_line(command).encode(), 0)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
