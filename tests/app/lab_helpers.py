"""What the lab tests share: the demo lab over the real offline model, with a run store of its
own, and the questions they ask."""

from __future__ import annotations

import tempfile
from pathlib import Path

from kgviz.app import Lab
from kgviz.runs.run import Run
from kgviz.runs.store import RunStore

FORREST = "who directed Forrest Gump"  # a demo example; gold: Robert Zemeckis
HOSTILE = "<img src=x onerror=alert(1)>"


def make_lab(demo_sessions, llm=None, store: RunStore | None = None, **options) -> Lab:
    """The app on the demo; `llm` defaults to the real offline model; its runs are kept in
    `store` (default: a folder of its own)."""
    store = store or RunStore(Path(tempfile.mkdtemp(prefix="kgviz-lab-runs-")))
    return Lab(
        "demo", "auto", "off", session_factory=demo_sessions(llm), ollama=[], store=store, **options
    )


def kept_runs(app: Lab) -> list[Run]:
    """The runs the lab kept, oldest first."""
    return [app.kept.run(entry.id) for entry in app.kept.entries()]
