"""A row of method checkboxes (the compare and batch panels tick the methods they run)."""

from __future__ import annotations

from collections.abc import Sequence

import ipywidgets as widgets

from kgviz.errors import UnknownNameError
from kgviz.reasoners.registry import method_label, method_names


class MethodChecks:
    """One checkbox per registered method (`boxes`, for a panel to place), labelled as the
    tables label it; `chosen` are ticked (None: all)."""

    def __init__(self, chosen: Sequence[str] | None = None) -> None:
        ticked = set(method_names() if chosen is None else chosen)
        self.checks = {
            name: widgets.Checkbox(
                value=name in ticked,
                description=method_label(name),
                indent=False,
                layout=widgets.Layout(width="170px"),
            )
            for name in method_names()
        }

    @property
    def boxes(self) -> list[widgets.Checkbox]:
        return list(self.checks.values())

    def selected(self) -> list[str]:
        """The ticked methods, in the registry's order."""
        return [name for name, check in self.checks.items() if check.value]

    def tick(self, methods: Sequence[str]) -> None:
        """Tick exactly `methods` (an unknown name is an error)."""
        unknown = set(methods) - set(self.checks)
        if unknown:
            raise UnknownNameError(
                f"unknown method {', '.join(sorted(unknown))}; known: {', '.join(self.checks)}"
            )
        for name, check in self.checks.items():
            check.value = name in methods
