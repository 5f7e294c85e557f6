"""Caches heal themselves: an unreadable cache file is moved aside, reported once, and rebuilt."""

from __future__ import annotations

import logging
import os
import zipfile
from pathlib import Path

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


class CorruptCache(ValueError):
    """A cache file that reads, but not as what it should hold."""


def set_aside(path: Path, error: BaseException) -> Path:
    """Move an unreadable cache file to `<name>.corrupt` (kept for inspection, replacing an
    older one) and log one warning; the caller then rebuilds it."""
    target = path.with_name(path.name + ".corrupt")
    try:
        os.replace(path, target)
    except OSError:
        path.unlink(missing_ok=True)
    reason = (str(error).splitlines() or [""])[0][:200]
    log.warning(
        "kgviz: cache file %s was unreadable (%s: %s); moved it to %s and rebuilt it",
        path,
        type(error).__name__,
        reason,
        target.name,
    )
    return target
