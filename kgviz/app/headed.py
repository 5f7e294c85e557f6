"""A result under a heading that names what it answers, greyed out once the inputs change."""

from __future__ import annotations

from collections.abc import Sequence

import ipywidgets as widgets

from kgviz.app.controls import Inputs
from kgviz.app.render import STALE, message
from kgviz.viz.escape import esc


def heading(question: str, details: str) -> str:
    """The question in bold, then `details` (method, dataset, LLM); both escaped."""
    return (
        f'<div class="kgviz-heading" style="font:13px sans-serif;margin:4px 0">'
        f"<b>{esc(question)}</b><br>"
        f'<span style="color:#555">{esc(details)}</span></div>'
    )


class Headed(widgets.VBox):
    """`heading` over `body`. Once `inputs` (what the body answers) are set, `check(now)` greys
    the body out while `now` differs, naming what changed and the button `again` that updates
    it."""

    def __init__(self, body: Sequence[widgets.Widget], placeholder: str, again: str) -> None:
        self.heading = widgets.HTML(message(placeholder))
        self.heading.add_class("kgviz-heading")
        self.body = widgets.VBox(list(body))
        self.body.add_class("kgviz-result")
        self.again = again
        self.inputs: Inputs | None = None
        self._title = ("", "")
        super().__init__([self.heading, self.body])

    def title(self, question: str, details: str) -> None:
        """Head the body with `question` and `details`, shown as current."""
        self._title = (question, details)
        self._draw([])

    def check(self, now: Inputs) -> None:
        """Grey the body out while `now` differs from `inputs`; shown as current once it
        matches again."""
        if self.inputs is not None:
            self._draw(self.inputs.changed(now))

    def _draw(self, changed: list[str]) -> None:
        note = ""
        if changed:
            note = message(f"not for the current {' and '.join(changed)}: press {self.again}")
        self.heading.value = heading(*self._title) + note
        if changed:
            self.body.add_class(STALE)
        else:
            self.body.remove_class(STALE)
