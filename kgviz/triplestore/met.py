"""The entities a process has met in a KG behind an endpoint: a `Vocabulary` numbered in the
order met, whose names are read from the name store only when asked for.

A walk meets thousands of entities whose names nothing reads (the neighbours a search steps
past), so an entity is numbered with its store id alone (in arrays: no object per entity), and
the names of those not named yet are read in one batch when one of them, a slice or the whole
vocabulary is first read. A name not met yet is looked up in the store, and met when the store
has it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from kgviz.kg.normalise import normalise
from kgviz.kg.vocab import Vocabulary, visible
from kgviz.triplestore.names import NameStore

UNNAMED = ""  # the name of an entity not named yet (no entity is named "": see kgviz.kg.rdf)
MERGE_AT = 65_536  # entities in the latest run of the store-id index before it may merge


class _SortedIds:
    """Store ids, sorted, and the id here of each."""

    def __init__(self, stored: np.ndarray | None = None, here: np.ndarray | None = None) -> None:
        self.stored = np.zeros(0, np.int64) if stored is None else stored
        self.ids = np.zeros(0, np.int64) if here is None else here

    def __len__(self) -> int:
        return len(self.stored)

    def merged(self, other: _SortedIds) -> _SortedIds:
        at = np.searchsorted(self.stored, other.stored)
        stored, ids = np.insert(self.stored, at, other.stored), np.insert(self.ids, at, other.ids)
        return _SortedIds(stored, ids)

    def here(self, stored: np.ndarray) -> np.ndarray:
        """The ids here of `stored`, -1 for those not in this run."""
        if not len(self.stored):
            return np.full(len(stored), -1, np.int64)
        at = np.minimum(np.searchsorted(self.stored, stored), len(self.stored) - 1)
        return np.where(self.stored[at] == stored, self.ids[at], -1)


class MetEntities(Vocabulary):
    """See the module docstring; `meet_named(name)` meets the store's entity of that name."""

    def __init__(self, store: NameStore, meet_named: Callable[[str], int | None]) -> None:
        super().__init__(kind="entity")
        self._store, self._meet_named = store, meet_named
        self._stored = np.zeros(0, np.int64)  # each entity's id in the store
        # store id -> id here, as sorted store ids and the id here of each, in two runs: the
        # latest entities in a small one, merged into the main one once it passes an eighth of
        # it (so each batch met copies the small run, not every id met)
        self._runs = [_SortedIds(), _SortedIds()]
        self._unnamed = 0  # how many are not named yet (named UNNAMED until then)
        self._lock = threading.RLock()

    def add_unnamed(self, stored: np.ndarray) -> None:
        """Number the store's entities `stored` (distinct, not met before) in order, their names
        read when asked."""
        with self._lock:
            first = len(self._names)
            self._names.extend([UNNAMED] * len(stored))
            self._stored = np.concatenate([self._stored, stored])
            order = np.argsort(stored)
            main, latest = self._runs
            latest = latest.merged(_SortedIds(stored[order], first + order))
            if len(latest) > max(MERGE_AT, len(main) // 8):
                main, latest = main.merged(latest), _SortedIds()
            self._runs = [main, latest]
            self._unnamed += len(stored)

    def clear(self) -> None:
        """Forget every entity met: ids are handed out from 0 again."""
        with self._lock:
            self._names, self._ids = [], {}
            self._stored = np.zeros(0, np.int64)
            self._runs = [_SortedIds(), _SortedIds()]
            self._unnamed = 0

    def here(self, stored: np.ndarray) -> np.ndarray:
        """The ids here of the store's entities `stored`, -1 for those not met."""
        with self._lock:
            main, latest = self._runs
        found = main.here(stored)
        missing = found < 0
        found[missing] = latest.here(stored[missing])
        return found

    def stored_of(self, ids: np.ndarray) -> np.ndarray:
        """The store's ids of the met entities `ids`."""
        return self._stored[ids]

    def _name(self, ids: Iterable[int] | None = None) -> None:
        """Read the names of `ids` (default: all) not named yet, in one batch."""
        with self._lock:
            names = self._names
            wanted = range(len(names)) if ids is None else dict.fromkeys(ids)  # once each
            pending = [i for i in wanted if not names[i]]
            if not pending:
                return
            stored = self._stored[pending].tolist()
            found = self._store.names_of(stored)
            for here, entity in zip(pending, stored, strict=True):
                name = found[entity]
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

    def read_names(self, ids: np.ndarray) -> list[str]:
        """The names of `ids` read from the store and not kept (to rank many entities once)."""
        stored = self._stored[ids].tolist()
        found = self._store.names_of(list(set(stored)))
        return [found[entity] for entity in stored]

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


class RanksAmong:
    """Name ranks of met entities, indexed as `KnowledgeGraph.entity_rank` is, but each lookup
    ranks the entities asked for among themselves: ties broken by name compare only those, and
    ranking every met entity would read every name. The names are read for the lookup and not
    kept (a hub's thousands of neighbours are ranked, and seldom shown)."""

    def __init__(self, entities: MetEntities) -> None:
        self._entities = entities

    def __getitem__(self, ids: np.ndarray) -> np.ndarray:
        ids = np.asarray(ids, dtype=np.int64)
        names = np.array(self._entities.read_names(ids.ravel()), dtype=object)
        _, ranks = np.unique(names, return_inverse=True)
        return ranks.reshape(ids.shape).astype(np.int64)
