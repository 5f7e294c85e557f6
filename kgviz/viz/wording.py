"""Counts in words, as views and status lines say them."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`count` and `noun`, plural unless one.

    >>> counted(1, "named element"), counted(3, "named element"), counted(0, "query", "queries")
    ('1 named element', '3 named elements', '0 queries')
    """
    return f"{count} {noun if count == 1 else plural or noun + 's'}"
