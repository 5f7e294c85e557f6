"""The history panel: every run made since the lab opened, named by time, method, options, LLM
and question. Open one to see all its stages again, or two side by side (for example the same
method with k=3 and k=10)."""

from __future__ import annotations

import ipywidgets as widgets

from kgviz.app.render import close_tree, message
from kgviz.app.run_view import RunView, run_label
from kgviz.run import Run


class HistoryPanel(widgets.VBox):
    """A list of runs (newest first), Open and Side by side buttons, and the opened run(s)."""

    def __init__(self) -> None:
        self.runs: list[Run] = []
        self.picker = widgets.SelectMultiple(options=[], rows=8, layout=widgets.Layout(width="98%"))
        self.open_button = widgets.Button(description="Open", icon="folder-open")
        self.pair_button = widgets.Button(description="Side by side", icon="columns")
        self.note = widgets.HTML(message("no run yet: ask or compare first"))
        self.shown = widgets.Box(layout=widgets.Layout(width="100%"))
        self.open_button.on_click(lambda _: self.reopen())
        self.pair_button.on_click(lambda _: self.side_by_side())
        super().__init__(
            [self.picker, widgets.HBox([self.open_button, self.pair_button]), self.note, self.shown]
        )
        self.add_class("kgviz-history")

    def add(self, run: Run) -> None:
        """Keep `run` (listed first)."""
        self.runs.append(run)
        self.picker.options = [
            (run_label(item), index) for index, item in reversed(list(enumerate(self.runs)))
        ]
        self.note.value = message(f"{len(self.runs)} run(s) since the lab opened")

    def chosen(self) -> list[Run]:
        return [self.runs[index] for index in sorted(self.picker.value)]

    def reopen(self, index: int | None = None) -> None:
        """Show one run (`index`, else the first selected) with every stage tab."""
        runs = [self.runs[index]] if index is not None else self.chosen()[:1]
        if not runs:
            self.note.value = message("select a run to open", "error")
            return
        self._show([RunView.of(runs[0])])

    def side_by_side(self, first: int | None = None, second: int | None = None) -> None:
        """Show two runs next to each other (`first` and `second`, else the two selected)."""
        if first is not None and second is not None:
            runs = [self.runs[first], self.runs[second]]
        else:
            runs = self.chosen()
        if len(runs) != 2:
            self.note.value = message("select exactly two runs to see them side by side", "error")
            return
        columns = [RunView.of(run) for run in runs]
        for column in columns:
            column.layout = widgets.Layout(width="50%", overflow="auto")
        self._show([widgets.HBox(columns, layout=widgets.Layout(width="100%"))])

    def _show(self, shown: list[widgets.Widget]) -> None:
        """Show `shown` in place of the run(s) shown before (closed)."""
        for widget in self.shown.children:
            close_tree(widget)
        self.shown.children = shown
