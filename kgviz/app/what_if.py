"""What-if on one run: pick evidence triples to remove, type triples to add, and press
Regenerate (the panel holding it answers again on the edited evidence)."""

from __future__ import annotations

import ipywidgets as widgets

from kgviz.errors import KgvizError
from kgviz.run import Run, parse_triple
from kgviz.trace import StringTriple


class WhatIf(widgets.VBox):
    """The run's evidence (select the triples to remove), a box of triples to add (one
    `head | relation | tail` a line) and the Regenerate button."""

    def __init__(self) -> None:
        self.evidence: list[StringTriple] = []
        self.drop = widgets.SelectMultiple(
            options=[],
            rows=8,
            description="remove",
            layout=widgets.Layout(width="98%"),
        )
        self.add = widgets.Textarea(
            placeholder="triples to add, one a line: head | relation | tail",
            description="add",
            layout=widgets.Layout(width="98%", height="5em"),
        )
        self.button = widgets.Button(
            description="Regenerate", button_style="primary", icon="refresh"
        )
        super().__init__(
            [
                widgets.HTML(
                    '<b style="font:13px sans-serif">What if</b> '
                    '<span style="font:13px sans-serif;color:#555">the evidence were different: '
                    "the answer is generated again from the edited evidence (retrieval is not "
                    "run again)</span>"
                ),
                self.drop,
                self.add,
                self.button,
            ]
        )
        self.add_class("kgviz-what-if")

    def show(self, run: Run) -> None:
        """Offer `run`'s evidence, nothing removed or added yet."""
        self.evidence = list(run.trace.evidence)
        self.drop.value = ()
        self.drop.options = [(" | ".join(t), i) for i, t in enumerate(self.evidence)]
        self.add.value = ""

    def edit(self) -> tuple[list[StringTriple], list[StringTriple]]:
        """The triples to remove and to add; a line that is not a triple, or no change at all,
        is a `KgvizError`."""
        dropped = [self.evidence[index] for index in sorted(self.drop.value)]
        added = [parse_triple(line) for line in self.add.value.splitlines() if line.strip()]
        if not dropped and not added:
            raise KgvizError("select triples to remove or type triples to add first")
        return dropped, added
