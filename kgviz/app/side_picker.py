"""Which compared methods stand side by side: a toggle per method, at most a few on at once."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import ipywidgets as widgets

from kgviz.app.render import control_row
from kgviz.viz.side_by_side import MOST


class SidePicker(widgets.HBox):
    """A toggle per offered method; turning one on past `MOST` turns off the one on longest.
    `on_change(picked)` hears every change the user makes."""

    def __init__(self, on_change: Callable[[list[str]], None]) -> None:
        self.on_change = on_change
        self.toggles: dict[str, widgets.ToggleButton] = {}
        self.order: list[str] = []  # the picked methods, the longest on first
        super().__init__([])
        self.add_class("kgviz-side-picker")

    @property
    def picked(self) -> list[str]:
        """The methods on, in the order offered."""
        return [method for method in self.toggles if method in self.order]

    def offer(self, methods: Sequence[tuple[str, str]], picked: Sequence[str]) -> None:
        """Toggles for `methods` (label, method), those in `picked` on (at most `MOST`)."""
        self.order = list(picked)[:MOST]
        self.toggles = {
            method: widgets.ToggleButton(
                value=method in self.order,
                description=label,
                tooltip=f"{label} side by side",
                layout=widgets.Layout(width="auto"),
            )
            for label, method in methods
        }
        for method, toggle in self.toggles.items():
            toggle.observe(lambda change, m=method: self._toggled(m, change["new"]), "value")
        title = widgets.HTML("<b>side by side:</b>" if methods else "")
        self.children = [control_row([title, *self.toggles.values()])]

    def _toggled(self, method: str, on: bool) -> None:
        if on and method not in self.order:
            self.order.append(method)
            if len(self.order) > MOST:
                self.toggles[self.order[0]].value = False  # its observer drops it
                return
        elif not on and method in self.order:
            self.order.remove(method)
        self.on_change(self.picked)
