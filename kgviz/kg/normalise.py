"""The normalised form of a name, which looser name matches compare."""

from __future__ import annotations

import re
import unicodedata


def normalise(text: str) -> str:
    """Case-folded, accent-free text with punctuation turned into single spaces."""
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(re.sub(r"[\W_]+", " ", bare.casefold()).split())
