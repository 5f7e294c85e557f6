"""What-if on one run: pick evidence triples to remove, type triples to add, and press
Regenerate (the panel holding it answers again on the edited evidence); or leave each triple
out in turn (the selected ones, else all, at most a bound), the time it should take said
before it starts."""

from __future__ import annotations

import ipywidgets as widgets

from kgviz.app.controls import stop_on
from kgviz.app.render import control_row, message
from kgviz.errors import InputError
from kgviz.runs.leave_one_out import seconds_each
from kgviz.runs.run import Run, parse_triple
from kgviz.trace import StringTriple
from kgviz.viz.wording import counted

MAX_LEFT_OUT = 20  # the default bound on leave-one-out regenerations


class WhatIf(widgets.VBox):
    """The run's evidence (select the triples to remove), a box of triples to add (one
    `head | relation | tail` a line) and the Regenerate button; then leave one out: its bound,
    its estimate, its button and Stop, and its results (`probes`)."""

    def __init__(self) -> None:
        self.evidence: list[StringTriple] = []
        self.each_s = 0.0  # about how long one regeneration of the run takes
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
        self.limit = widgets.BoundedIntText(
            value=MAX_LEFT_OUT, min=1, max=1000, description="at most"
        )
        self.leave_out = widgets.Button(description="Leave one out", icon="search")
        self.stop = widgets.Button(description="Stop", icon="stop", disabled=True)
        stop_on(self.stop)
        self.estimate = widgets.HTML()
        self.probes = widgets.HTML()
        self.probes_graph = widgets.HTML()  # the evidence graph, each triple left out marked
        for control in (self.drop, self.limit):
            control.observe(lambda _: self._estimate(), "value")
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
                control_row([self.leave_out, self.limit, self.stop]),
                self.estimate,
                self.probes,
                self.probes_graph,
            ]
        )
        self.add_class("kgviz-what-if")

    def show(self, run: Run) -> None:
        """Offer `run`'s evidence, nothing removed or added yet."""
        self.evidence = list(run.trace.evidence)
        self.drop.value = ()
        self.drop.options = [(" | ".join(t), i) for i, t in enumerate(self.evidence)]
        self.add.value = ""
        self.each_s = seconds_each(run)
        self.probes.value = self.probes_graph.value = ""
        self._estimate()

    def edit(self) -> tuple[list[StringTriple], list[StringTriple]]:
        """The triples to remove and to add; a line that is not a triple, or no change at all,
        is a `KgvizError`."""
        dropped = [self.evidence[index] for index in sorted(self.drop.value)]
        added = [parse_triple(line) for line in self.add.value.splitlines() if line.strip()]
        if not dropped and not added:
            raise InputError("select triples to remove or type triples to add first")
        return dropped, added

    def left_out(self) -> list[StringTriple]:
        """The triples leave one out takes out in turn: the selected ones, else every one, at
        most `limit`."""
        chosen = [self.evidence[index] for index in sorted(self.drop.value)] or self.evidence
        return chosen[: self.limit.value]

    def _estimate(self) -> None:
        count, chosen = len(self.left_out()), len(self.drop.value) or len(self.evidence)
        bound = f" (the first {count} of {chosen} triples)" if count < chosen else ""
        self.estimate.value = message(
            f"leave one out: {counted(count, 'regeneration')}{bound} of about "
            f"{self.each_s:.1f} s each (what this run's answering calls took), about "
            f"{count * self.each_s:.0f} s in all; select triples to leave out only those"
        )
