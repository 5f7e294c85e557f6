"""What the ask and compare panels share: dataset, LLM, question (with examples), sessions, the
inputs a result answers, and running work in the background with errors shown as a message."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Self

import ipywidgets as widgets

from kgviz.app.llm_picker import LLMPicker
from kgviz.app.render import control_row, message
from kgviz.datasets import QARecord, dataset_names, get_dataset
from kgviz.errors import KgvizError
from kgviz.llm.cache import CacheMode
from kgviz.llm.deadline import allow_requests, cancel_requests
from kgviz.llm.errors import LLMCancelled
from kgviz.session import Session, open_session

SessionFactory = Callable[[str, str, CacheMode], Session]
MAX_EXAMPLES = 300
log = logging.getLogger(__name__)


def available_datasets(extra: str) -> list[str]:
    """Registered datasets whose KB files and at least one question split are present (a dataset
    with a graph per question has no KB files: its splits are its data), plus `extra` (e.g. a
    `custom:` folder)."""
    names = []
    for name in dataset_names():
        data = get_dataset(name)
        if all(path.is_file() for path in data.kb_files) and data.available_splits():
            names.append(name)
    return names if extra in names else [extra, *names]


@dataclass(frozen=True)
class Inputs:
    """What a result answers: the question, dataset and LLM spec, and (for the Ask panel) the
    method."""

    question: str
    dataset: str
    llm: str
    method: str = ""

    def changed(self, now: Inputs) -> list[str]:
        """The names of the inputs that differ in `now`."""
        return [f.name for f in fields(self) if getattr(self, f.name) != getattr(now, f.name)]


def example_records(dataset: str) -> list[QARecord]:
    """Up to `MAX_EXAMPLES` questions of the dataset's dev split (else its first split)."""
    data = get_dataset(dataset)
    splits = data.available_splits()
    if not splits:
        return []
    return data.questions("dev" if "dev" in splits else splits[0])[:MAX_EXAMPLES]


class Controls(widgets.VBox):
    """Dataset and LLM pickers, the question box and a status line; opens sessions on demand."""

    def __init__(
        self,
        dataset: str = "demo",
        llm: str = "auto",
        cache_mode: CacheMode = "rw",
        session_factory: SessionFactory = open_session,
        ollama: list[str] | None = None,
    ) -> None:
        self.cache_mode = cache_mode
        self.session_factory = session_factory
        self.sessions: dict[tuple[str, str], Session] = {}
        self.examples: dict[str, QARecord] = {}
        self.dataset = widgets.Dropdown(
            options=available_datasets(dataset),
            value=dataset,
            description="dataset",
            layout=widgets.Layout(width="300px"),
        )
        self.folder = widgets.Text(
            placeholder="or a folder with kb.tsv (custom:)",
            layout=widgets.Layout(width="300px"),
            tooltip="a folder holding kb.tsv (head, relation, tail) and <split>.jsonl questions",
            continuous_update=False,  # read once typed (Enter or leaving the box)
        )
        self.folder.observe(lambda _: self.use_folder(), "value")
        self.llm = LLMPicker(llm, ollama)
        self.question = widgets.Combobox(
            placeholder="type a question or pick an example",
            description="question",
            ensure_option=False,
            layout=widgets.Layout(width="720px"),
        )
        self.gold = widgets.HTML()
        self.status = widgets.HTML(layout=widgets.Layout(min_height="2.6em"))
        self.status.add_class("kgviz-status")
        self.running = threading.Event()  # a run is under way (its status is not to be cleared)
        self.on_inputs(self._clear_status)  # first: what a new dataset's examples say stays
        self.dataset.observe(lambda _: self.load_examples(), "value")
        self.question.observe(lambda _: self._show_gold(), "value")
        super().__init__(
            [
                control_row([self.dataset, self.folder, self.llm]),
                self.question,
                self.gold,
                self.status,
            ]
        )
        self.load_examples()

    def use_folder(self, folder: str | None = None) -> None:
        """Add the `custom:` dataset of `folder` (default: the folder box) and pick it."""
        path = (folder if folder is not None else self.folder.value).strip()
        if not path:
            return
        name = path if path.startswith("custom:") else f"custom:{path}"
        try:
            get_dataset(name).check_available()
        except KgvizError as error:
            self.status.value = message(str(error), "error")
            return
        if name not in self.dataset.options:
            self.dataset.options = [name, *self.dataset.options]
        self.dataset.value = name
        self.status.value = message(f"dataset {name} ready", "ok")

    def load_examples(self) -> None:
        """Offer the current dataset's questions as examples (their gold answers are kept)."""
        try:
            records = example_records(self.dataset.value)
        except KgvizError as error:
            records = []
            self.status.value = message(str(error), "error")
        self.examples = {record.question: record for record in records}
        self.question.options = tuple(self.examples)
        self._show_gold()

    def example(self) -> QARecord | None:
        """The picked example, when the question box still holds its exact text."""
        return self.examples.get(self.question.value.strip())

    def _show_gold(self) -> None:
        record = self.example()
        self.gold.value = message(f"gold: {', '.join(record.answers)}") if record else ""

    def inputs(self, method: str = "") -> Inputs:
        """The inputs as they are now (with `method`, the Ask panel's)."""
        return Inputs(self.question.value.strip(), self.dataset.value, self.llm.spec, method)

    def on_inputs(self, callback: Callable[[], None]) -> None:
        """Call `callback` whenever the question, dataset or LLM changes."""
        for widget in (self.question, self.dataset, *self.llm.inputs):
            widget.observe(lambda _: callback(), "value")

    def _clear_status(self) -> None:
        """A status about other inputs goes when they change (a run's own stays until it ends)."""
        if not self.running.is_set():
            self.status.value = ""

    def run(
        self,
        work: Callable[[], None],
        buttons: Sequence[widgets.Button] = (),
        background: bool = False,
        stop: widgets.Button | None = None,
    ) -> None:
        """`run_guarded(work, ...)` with the status line, marked as running meanwhile."""

        def marked() -> None:
            self.running.set()
            try:
                work()
            finally:
                self.running.clear()

        run_guarded(marked, self.status, buttons, background, stop)

    def session(self, dataset: str | None = None) -> Session:
        """The session for `dataset` (default: the chosen one) and the chosen LLM, opened once
        and then reused."""
        key = (dataset or self.dataset.value, self.llm.spec)
        if key not in self.sessions:
            self.status.value = message(f"opening {key[0]} with LLM {key[1]} …")
            self.sessions[key] = self.session_factory(key[0], key[1], self.cache_mode)
        return self.sessions[key]


def run_guarded(
    work: Callable[[], None],
    status: widgets.HTML,
    buttons: Sequence[widgets.Button] = (),
    background: bool = False,
    stop: widgets.Button | None = None,
) -> None:
    """Run `work` with `buttons` disabled; a failure becomes a one-line message in `status`
    (a KgvizError as it is; anything else with its type, the traceback going to the log).
    `stop` is enabled meanwhile: pressing it cancels the LLM requests of the run (see `stop_on`),
    and the run ends as "stopped" (neutral: the user asked for it)."""

    def guarded() -> None:
        try:
            work()
        except LLMCancelled:
            status.value = message("stopped")
        except KgvizError as error:
            status.value = message(f"error: {error}", "error")
        except Exception as error:  # a worker thread has nowhere else to report
            log.exception("kgviz app: unexpected error")
            status.value = message(f"unexpected error: {type(error).__name__}: {error}", "error")
        finally:
            allow_requests()
            for button in buttons:
                button.disabled = False
            if stop is not None:
                stop.disabled = True

    for button in buttons:
        button.disabled = True
    if stop is not None:
        stop.disabled = False
    if background:
        threading.Thread(target=guarded, daemon=True).start()
    else:
        guarded()


def stop_on(button: widgets.Button) -> None:
    """Make `button` stop a run: the LLM requests in flight are cancelled and new ones refused
    until the run has ended (`run_guarded` allows them again), so the run ends at once."""
    button.on_click(lambda _: cancel_requests(until_allowed=True))


class Stopwatch(widgets.HTML):
    """The seconds a run has been going, ticking while it runs (`with stopwatch: ...`)."""

    EVERY_S = 0.5

    def __init__(self) -> None:
        super().__init__()
        self.add_class("kgviz-clock")
        self._running = threading.Event()
        self._started = 0.0

    def __enter__(self) -> Self:
        self._started = time.monotonic()
        self._running.set()
        threading.Thread(target=self._tick, daemon=True, name="kgviz-stopwatch").start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._running.clear()
        self._show("took")

    def _tick(self) -> None:
        while self._running.is_set():
            self._show("running")
            time.sleep(self.EVERY_S)

    def _show(self, state: str) -> None:
        seconds = time.monotonic() - self._started
        self.value = f'<span style="font:13px sans-serif;color:#555">{state} {seconds:.1f} s</span>'
