"""Caches heal themselves: a cache file that cannot be read, or does not hold what it should, is
moved aside, reported once, and rebuilt; a read-only cache leaves it where it is."""

from __future__ import annotations

import logging
import os
import shutil
import threading
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

log = logging.getLogger(__name__)

# What reading a torn, truncated or tampered cache file raises (numpy, zip, faiss, JSON, types).
CORRUPT = (
    OSError,
    ValueError,
    KeyError,
    EOFError,
    IndexError,
    TypeError,
    RuntimeError,
    zipfile.BadZipFile,
)

_reported: set[Path] = set()  # bad cache paths left in place and already reported
_reported_lock = threading.Lock()


class CorruptCache(ValueError):
    """A cache file that reads, but not as what it should hold."""


def set_aside(path: Path, error: BaseException, read_only: bool = False) -> None:
    """Deal with an unusable cache file (or a folder or file where the other should be): move it
    to `<name>.corrupt`, replacing an older one, for the caller to rebuild; with `read_only`,
    leave it alone. Either way a warning says so; one left in place is reported only once."""
    outcome = "left it in place (read-only cache: nothing is written)"
    if not read_only:
        target = path.with_name(path.name + ".corrupt")
        try:
            _remove(target)
            os.replace(path, target)
            outcome = f"moved it to {target.name}; it is rebuilt"
        except OSError as failure:
            outcome = f"could not move it aside ({failure.strerror or failure}); it is not used"
    if os.path.lexists(path):
        with _reported_lock:
            if path in _reported:
                return
            _reported.add(path)
    reason = (str(error).splitlines() or [""])[0][:200]
    log.warning(
        "kgviz: cache file %s was unreadable (%s: %s); %s",
        path,
        type(error).__name__,
        reason,
        outcome,
    )


def _remove(path: Path) -> None:
    """Delete a file or folder, if there is one."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


T = TypeVar("T")


def load_or_build(
    path: Path, load: Callable[[Path], T], build: Callable[[], T], save: Callable[[T, Path], None]
) -> T:
    """`load(path)` if the file is there, else `build()` and `save` it there; a file that does
    not load (torn, truncated, another format) is set aside and rebuilt."""
    if path.is_file():
        try:
            return load(path)
        except CORRUPT as error:
            set_aside(path, error)
    value = build()
    save(value, path)
    return value
