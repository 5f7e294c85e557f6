"""Handing freed memory back to the system after a walk.

A walk's replies are parsed into many small objects and its arrays are copied as they grow; once
freed, glibc keeps most of that memory in its heap (a free page below a live block is never
returned), so the resident size of a long session would ratchet up to its largest walk's and
stay there. `malloc_trim` returns every free page of the heap.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, or None where the C library has none (macOS, musl, Windows)."""
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):
        return None


_TRIM = _malloc_trim()


def return_freed_memory() -> None:
    """Return the heap's free pages to the system (nothing where the C library cannot)."""
    if _TRIM is not None:
        _TRIM(0)
