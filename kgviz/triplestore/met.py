"""The entities a process has met in a KG behind an endpoint: a `Vocabulary` numbered in the
order met, whose names are read from the name store only when asked for.

A walk meets thousands of entities whose names nothing reads (the neighbours a search steps
past), so an entity is numbered with its store id alone, and the names of those not named yet are
read in one batch when one of them, a slice or the whole vocabulary is first read. A name not
met yet is looked up in the store, and met when the store has it.
"""

from __future__ import annotations

import threading
from array import array
from collections.abc import Callable, Iterable, Iterator

from kgviz.kg.normalise import normalise
from kgviz.kg.vocab import Vocabulary, visible
from kgviz.triplestore.names import NameStore

UNNAMED = ""  # the name of an entity not named yet (no entity is named "": see kgviz.kg.rdf)


class MetEntities(Vocabulary):
    """See the module docstring; `meet_named(name)` meets the store's entity of that name."""

    def __init__(self, store: NameStore, meet_named: Callable[[str], int | None]) -> None:
        super().__init__(kind="entity")
        self._store, self._meet_named = store, meet_named
        self._stored = array("q")  # each entity's id in the store
        self._unnamed = 0  # how many are not named yet (named UNNAMED until then)
        self._lock = threading.RLock()

    def add_unnamed(self, stored: list[int]) -> int:
        """Number the store's entities `stored` (not met before), their names read when asked;
        the id of the first."""
        with self._lock:
            first = len(self._names)
            self._names.extend([UNNAMED] * len(stored))
            self._stored.extend(stored)
            self._unnamed += len(stored)
            return first

    def _name(self, ids: Iterable[int] | None = None) -> None:
        """Read the names of `ids` (default: all) not named yet, in one batch."""
        with self._lock:
            names = self._names
            pending = [i for i in (range(len(names)) if ids is None else ids) if not names[i]]
            if not pending:
                return
            found = self._store.names_of([self._stored[i] for i in pending])
            for here in pending:
                name = found[self._stored[here]]
                names[here] = name
                self._ids[name] = here
            self._unnamed -= len(pending)

    def __getitem__(self, index):
        if self._unnamed:
            if isinstance(index, slice):
                self._name(range(len(self._names))[index])
            else:
                self._name([range(len(self._names))[index]])
        return self._names[index]

    def __iter__(self) -> Iterator[str]:
        self._name()
        return iter(list(self._names))

    def names_of(self, ids: Iterable[int]) -> list[str]:
        """The names of `ids`, those not named yet read in one batch."""
        ids = list(ids)
        self._name(ids)
        return super().names_of(ids)

    def add(self, name: str) -> int:
        raise TypeError("entities of a KG behind an endpoint are met, not added")

    def get(self, name: str) -> int | None:
        found = super().get(name)
        return found if found is not None else self._meet_named(visible(name))

    def to_arrays(self):
        self._name()
        return super().to_arrays()

    def _spelled_alike(self, name: str) -> Iterable[str]:
        """Names in the store that normalise as `name` does (those differing in case among them)."""
        return self._store.names_of(self._store.entities_folded(normalise(name))[:50]).values()
