"""A string vocabulary: names kept exactly (case-sensitive), mapped to dense integer ids.

Names enter a graph here, so this is where control characters are made visible: a TAB, line
break or other control character in a name is stored as its escape (`\\t`, `\\n`, `\\x1b`), so
that prompts, evidence lines and views show it and a name is always one line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from itertools import pairwise

import numpy as np

from kgviz.errors import UnknownNameError

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_ESCAPES = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def visible(name: str) -> str:
    """`name` with each control character written as its escape (`\\t`, `\\n`, `\\r`, `\\xNN`).

    >>> print(visible("Tab\\there\\x1b[31m"))
    Tab\\there\\x1b[31m
    """
    if name.isprintable():
        return name
    return _CONTROL.sub(lambda m: _ESCAPES.get(m[0]) or f"\\x{ord(m[0]):02x}", name)


class Vocabulary(Sequence[str]):
    """Bidirectional name <-> id map with ids in insertion order."""

    def __init__(self, names: Iterable[str] = (), kind: str = "name") -> None:
        self.kind = kind
        self._names: list[str] = []
        self._ids: dict[str, int] = {}
        for name in names:
            self.add(name)

    def add(self, name: str) -> int:
        """Return the id of `name` (its control characters escaped, see `visible`), adding it if
        new."""
        found = self._ids.get(name)
        if found is not None:
            return found
        name = visible(name)
        found = self._ids.get(name)
        if found is not None:
            return found
        new_id = len(self._names)
        self._names.append(name)
        self._ids[name] = new_id
        return new_id

    def id(self, name: str) -> int:
        """The id of `name`; a clear error names the closest spelling when it is unknown."""
        found = self.get(name)
        if found is None:
            raise UnknownNameError(self._unknown_message(name))
        return found

    def get(self, name: str) -> int | None:
        """The id of `name`, spelled as given or with its control characters escaped."""
        found = self._ids.get(name)
        return found if found is not None or name.isprintable() else self._ids.get(visible(name))

    def __contains__(self, name: object) -> bool:
        return name in self._ids or (isinstance(name, str) and self.get(name) is not None)

    def __getitem__(self, index):
        return self._names[index]

    def names_of(self, ids: Iterable[int]) -> list[str]:
        """The names of `ids`."""
        return [self._names[i] for i in ids]

    def __len__(self) -> int:
        return len(self._names)

    def _unknown_message(self, name: str) -> str:
        folded = name.casefold()
        same_case_folded = [n for n in self._spelled_alike(name) if n.casefold() == folded][:3]
        hint = (
            f" (did you mean {', '.join(map(repr, same_case_folded))}?)" if same_case_folded else ""
        )
        return f"unknown {self.kind} {name!r}{hint}"

    def _spelled_alike(self, name: str) -> Iterable[str]:
        """Names the error for an unknown `name` may suggest (those that differ in case only)."""
        return self._names

    def to_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """Pack names as one UTF-8 byte blob plus offsets (no pickling needed to store)."""
        encoded = [name.encode("utf-8") for name in self._names]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(b) for b in encoded], out=offsets[1:])
        return np.frombuffer(b"".join(encoded), dtype=np.uint8), offsets

    @classmethod
    def from_arrays(cls, blob: np.ndarray, offsets: np.ndarray, kind: str) -> Vocabulary:
        raw = blob.tobytes()
        bounds = offsets.tolist()
        vocab = cls(kind=kind)
        vocab._names = [raw[a:b].decode("utf-8") for a, b in pairwise(bounds)]
        vocab._ids = {name: i for i, name in enumerate(vocab._names)}
        return vocab
