"""Download buttons: each builds its file only when clicked and hands it to the browser, so the
notebook page holds no file until one is asked for (then only that one, briefly).

The file travels as a small script in an Output widget; JupyterLab runs it (widget outputs are
trusted), and it saves the file through a Blob link: no server route, no network, offline."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import ipywidgets as widgets

# How long a delivered file stays in the Output after its click (time enough for the browser).
KEPT_S = 30.0
# `file` is {"name", "mime", "data" (base64)}: the one line the script is given.
SAVE_SCRIPT = """const file = {file};
(() => {{
  const bytes = Uint8Array.from(atob(file.data), c => c.charCodeAt(0));
  const url = URL.createObjectURL(new Blob([bytes], {{type: file.mime}}));
  const link = document.createElement("a");
  link.href = url;
  link.download = file.name;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}})();
"""


@dataclass(frozen=True)
class DownloadFile:
    """A file offered for download: its button label, file name, MIME type and how to build its
    text (called on click)."""

    label: str
    filename: str
    mime: str
    build: Callable[[], str]


def save_script(filename: str, mime: str, text: str) -> str:
    """The script that makes the browser save `text` as `filename`."""
    data = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return SAVE_SCRIPT.format(file=json.dumps({"name": filename, "mime": mime, "data": data}))


class Downloads(widgets.HBox):
    """`download:` and a button per offered file; always one row high, so that offering files
    moves nothing below it."""

    def __init__(self) -> None:
        self.buttons: dict[str, widgets.Button] = {}
        self.note = widgets.HTML()
        self.delivery = widgets.Output(layout=widgets.Layout(width="0px", height="0px"))
        self._clearing: threading.Timer | None = None
        super().__init__(  # buttons wrap to a second line rather than cut their labels
            layout=widgets.Layout(min_height="32px", align_items="center", flex_flow="row wrap")
        )
        self.add_class("kgviz-downloads")
        self.offer([])

    def offer(self, files: Sequence[DownloadFile]) -> None:
        """Show a button for each of `files` (none: say that a run comes first)."""
        for button in self.buttons.values():
            button.close()
        self.buttons = {file.label: self._button(file) for file in files}
        label = "download:" if files else "downloads appear when a run has finished"
        self.note.value = f'<span style="font:13px sans-serif;color:#555">{label}</span>'
        self.children = [self.note, *self.buttons.values(), self.delivery]

    def _button(self, file: DownloadFile) -> widgets.Button:
        button = widgets.Button(
            description=file.label,
            icon="download",
            tooltip=f"save {file.filename}",
            layout=widgets.Layout(width="auto", flex="0 0 auto"),
        )
        button.on_click(lambda _: self.deliver(file))
        return button

    def deliver(self, file: DownloadFile) -> None:
        """Build `file` and hand it to the browser; the Output lets go of it after `KEPT_S`."""
        script = save_script(file.filename, file.mime, file.build())
        self.delivery.outputs = (
            {
                "output_type": "display_data",
                "metadata": {},
                "data": {
                    "application/javascript": script,
                    "text/plain": f"download {file.filename}",
                },
            },
        )
        if self._clearing is not None:
            self._clearing.cancel()
        self._clearing = threading.Timer(KEPT_S, self._let_go)
        self._clearing.daemon = True
        self._clearing.start()

    def _let_go(self) -> None:
        self.delivery.outputs = ()
