"""The runs the lab keeps: every run it makes saved in the run store, and any kept run (this
session's or an earlier one's) loaded back to be shown again."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from kgviz.kg.graph import KnowledgeGraph
from kgviz.runs.run import Run
from kgviz.runs.store import RunEntry, RunStore

# The graph a loaded run's views link to (None: drawn without it).
GraphOf = Callable[[Run], KnowledgeGraph | None]


class KeptRuns:
    """`store`'s runs; the runs made here stay in memory with their graph, others are loaded
    once when first shown (their graph from `graph_of`). `on_change()` is called after each
    save or annotation."""

    def __init__(self, store: RunStore, graph_of: GraphOf = lambda run: None) -> None:
        self.store = store
        self.graph_of = graph_of
        self.on_change: Callable[[], None] = lambda: None
        self._runs: dict[str, Run] = {}
        self._lock = threading.Lock()  # runs are kept from the panels' worker threads

    def keep(self, run: Run, parent: str | None = None) -> RunEntry:
        """Save `run` (`parent`: the id of the run it was regenerated from); its entry. A store
        that cannot be written raises `KgvizError`."""
        entry = self.store.save(run, parent)
        with self._lock:
            self._runs[entry.id] = run
        self.on_change()
        return entry

    def entries(self) -> list[RunEntry]:
        """Every kept run's entry, oldest first."""
        return self.store.entries()

    def run(self, run_id: str) -> Run:
        """The kept run `run_id` (loaded from the store the first time)."""
        with self._lock:
            found = self._runs.get(run_id)
        if found is None:
            found = self.store.load(run_id)
            found.kg = self.graph_of(found)
            with self._lock:
                found = self._runs.setdefault(run_id, found)
        return found

    def annotate(self, run_id: str, tags: Sequence[str], note: str) -> None:
        """Set a run's tags and note."""
        self.store.annotate(run_id, tags, note)
        self.on_change()
