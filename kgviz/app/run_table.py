"""The run table: one row per kept run under the run store's index columns, sorted by any column
and filtered by `column=text` terms or plain words; a tick box per row selects runs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as widgets

from kgviz.app.render import control_row, message
from kgviz.runs.run import options_text
from kgviz.runs.store import RunEntry
from kgviz.viz.escape import esc

MAX_ROWS = 100  # rows shown at once (a filter narrows the rest)
TICK_WIDTH = "28px"


@dataclass(frozen=True)
class Column:
    """A column: its `name`, an entry's `value` (sorted by) and the width of its cells."""

    name: str
    value: Callable[[RunEntry], Any]
    width: int = 70

    def text(self, entry: RunEntry) -> str:
        value = self.value(entry)
        if value is None:
            return "—"
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, float):
            return f"{value:.2f}"
        return str(value)


def verdict(entry: RunEntry) -> str | None:
    """right (hits@1), listed (a gold answer among the others), wrong; None without gold."""
    if entry.hits1 is None:
        return None
    return "right" if entry.hits1 else "listed" if entry.hit else "wrong"


# What names a run and how it fared first, so that they are in view at 1,000 px; the rest
# scrolls with the whole table.
COLUMNS = (
    Column("question", lambda e: e.question, 250),
    Column("method", lambda e: e.method, 85),
    Column("preset", lambda e: e.preset, 55),
    Column("verdict", verdict, 55),
    Column("grounded", lambda e: e.grounded, 65),
    Column("time", lambda e: e.time.replace("T", " "), 130),
    Column("dataset", lambda e: e.dataset, 80),
    Column("options", lambda e: options_text(e.options), 120),
    Column("LLM", lambda e: e.llm, 150),
    Column("hits@1", lambda e: e.hits1, 50),
    Column("hit", lambda e: e.hit, 40),
    Column("F1", lambda e: e.f1, 45),
    Column("evidence", lambda e: e.evidence, 60),
    Column("tokens", lambda e: e.prompt_tokens + e.completion_tokens, 60),
    Column("latency (s)", lambda e: e.seconds, 70),
    Column("cached", lambda e: e.replayed, 60),
    Column("code", lambda e: e.code_version, 90),
    Column("parent", lambda e: e.parent, 90),
    Column("tags", lambda e: ", ".join(e.tags), 90),
    Column("note", lambda e: e.note, 140),
    Column("id", lambda e: e.id, 250),
)
BY_NAME = {column.name.casefold(): column for column in COLUMNS}


def matches(entry: RunEntry, query: str) -> bool:
    """Whether `entry` passes every term of `query`: `column=text` wants `text` in that
    column, a plain word in any column (case-insensitive)."""
    cells = {name: column.text(entry).casefold() for name, column in BY_NAME.items()}
    for term in query.casefold().split():
        name, equals, wanted = term.partition("=")
        if equals and name in cells:
            if wanted not in cells[name]:
                return False
        elif not any(term in cell for cell in cells.values()):
            return False
    return True


def ordered(entries: Sequence[RunEntry], column: str, descending: bool) -> list[RunEntry]:
    """`entries` (oldest first) sorted by `column`, ties in the order kept (newest first when
    `descending`); empty cells last either way."""
    by = BY_NAME[column.casefold()]
    filled = [(by.value(e), n, e) for n, e in enumerate(entries) if by.value(e) is not None]
    empty = [e for e in entries if by.value(e) is None]
    ranked = sorted(filled, key=lambda item: item[:2], reverse=descending)
    return [entry for _, _, entry in ranked] + empty


CELL_PADDING = 8  # px: 4 on each side
TABLE_WIDTH = sum(column.width + CELL_PADDING for column in COLUMNS)


def row_html(cells: Sequence[str], head: bool = False) -> str:
    """One row of fixed-width cells (every row is its own table, of one width, so columns line
    up); each cell is escaped and cut with an ellipsis, its whole text on hover."""
    tag = "th" if head else "td"
    style = "overflow:hidden;text-overflow:ellipsis;white-space:nowrap;padding:1px 4px"
    row = "".join(
        f'<{tag} title="{esc(cell)}" style="{style};width:{column.width}px;'
        f'max-width:{column.width}px;text-align:left">{esc(cell)}</{tag}>'
        for column, cell in zip(COLUMNS, cells, strict=True)
    )
    return (
        '<table style="table-layout:fixed;border-collapse:collapse;font:12px sans-serif;'
        f'width:{TABLE_WIDTH}px">'
        f"<tr>{row}</tr></table>"
    )


def full_row(children: list[widgets.Widget]) -> widgets.HBox:
    """A row as wide as the table that never scrolls on its own (the table scrolls as one)."""
    width = f"{TABLE_WIDTH + int(TICK_WIDTH.removesuffix('px'))}px"
    return widgets.HBox(
        children,
        layout=widgets.Layout(overflow="visible", width=width, min_width=width, flex="0 0 auto"),
    )


class RunTable(widgets.VBox):
    """A filter box, a sort picker and the rows; `ticked` are the selected runs' ids in the
    order they were ticked, and `on_select()` is called when they change."""

    def __init__(self) -> None:
        self.filter = widgets.Text(
            placeholder="filter: words, or column=text (method=kaping verdict=wrong tags=keep)",
            description="filter",
            layout=widgets.Layout(width="520px"),
        )
        self.sort = widgets.Dropdown(
            options=[column.name for column in COLUMNS], value="time", description="sort by"
        )
        self.descending = widgets.Checkbox(value=True, description="descending", indent=False)
        self.note = widgets.HTML()
        self.rows = widgets.VBox(layout=widgets.Layout(overflow="visible"))
        self.rows.add_class("kgviz-run-rows")
        self.entries: list[RunEntry] = []
        self.ticked: list[str] = []
        self.on_select: Callable[[], None] = lambda: None
        self._quiet = False  # ticks set by `select` call `on_select` once, at the end
        self._rows: dict[str, tuple[widgets.Checkbox, widgets.HTML, widgets.HBox]] = {}
        for control in (self.filter, self.sort, self.descending):
            control.observe(lambda _: self._draw(), "value")
        header = full_row(
            [
                widgets.HTML(layout=widgets.Layout(width=TICK_WIDTH, min_width=TICK_WIDTH)),
                widgets.HTML(row_html([c.name for c in COLUMNS], head=True)),
            ]
        )
        # one scroll area for the header and every row, both ways
        table = widgets.VBox(
            [header, self.rows],
            layout=widgets.Layout(overflow="auto", max_height="24em", width="100%"),
        )
        table.add_class("kgviz-run-scroll")
        super().__init__([control_row([self.filter, self.sort, self.descending]), table, self.note])
        self.add_class("kgviz-run-table")

    def show(self, entries: Sequence[RunEntry]) -> None:
        """Show `entries` (the ticks of runs still listed stay)."""
        self.entries = list(entries)
        self._draw()

    def shown(self) -> list[RunEntry]:
        """The entries that pass the filter, in the chosen order."""
        passing = [e for e in self.entries if matches(e, self.filter.value)]
        return ordered(passing, self.sort.value, self.descending.value)

    def select(self, run_ids: Sequence[str]) -> None:
        """Tick exactly `run_ids`, in this order (`on_select` is called once); a filter that
        hides one of them is cleared first, so that no ticked run is out of sight."""
        if not set(run_ids) <= self._visible():
            self._quiet = True
            try:
                self.filter.value = ""
            finally:
                self._quiet = False
        self._quiet = True
        try:
            for tick, _, _ in self._rows.values():
                tick.value = False
            for run_id in run_ids:
                self._row(run_id)[0].value = True
        finally:
            self._quiet = False
        self.on_select()

    def _visible(self) -> set[str]:
        return {entry.id for entry in self.shown()[:MAX_ROWS]}

    def _draw(self) -> None:
        """Draw the rows that pass the filter; a ticked run that no longer does is unticked
        (what is ticked is what is open, and both are in sight)."""
        passing = self.shown()
        shown = passing[:MAX_ROWS]
        visible = {entry.id for entry in shown}
        hidden = [run_id for run_id in self.ticked if run_id not in visible]
        for entry in shown:
            self._row(entry.id)[1].value = row_html([c.text(entry) for c in COLUMNS])
        self.rows.children = [self._row(entry.id)[2] for entry in shown]
        if hidden:
            quiet, self._quiet = self._quiet, True
            try:
                for run_id in hidden:
                    if run_id in self._rows:
                        self._rows[run_id][0].value = False
                self.ticked = [run_id for run_id in self.ticked if run_id in visible]
            finally:
                self._quiet = quiet
            if not quiet:
                self.on_select()
        more = f"; the first {MAX_ROWS} shown, filter to narrow" if len(passing) > MAX_ROWS else ""
        self.note.value = message(
            f"{len(passing)} of {len(self.entries)} kept runs{more} · tick one run to open it, "
            "two to compare them"
        )

    def _row(self, run_id: str) -> tuple[widgets.Checkbox, widgets.HTML, widgets.HBox]:
        if run_id not in self._rows:
            tick = widgets.Checkbox(
                indent=False, layout=widgets.Layout(width=TICK_WIDTH, min_width=TICK_WIDTH)
            )
            tick.observe(lambda change: self._ticked(run_id, change["new"]), "value")
            cells = widgets.HTML()
            self._rows[run_id] = (tick, cells, full_row([tick, cells]))
        return self._rows[run_id]

    def _ticked(self, run_id: str, on: bool) -> None:
        if on and run_id not in self.ticked:
            self.ticked.append(run_id)
        elif not on and run_id in self.ticked:
            self.ticked.remove(run_id)
        else:
            return
        if not self._quiet:
            self.on_select()
