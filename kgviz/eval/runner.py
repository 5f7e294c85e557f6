"""Evaluation runs: every selected question through every method (`Session.ask`), one JSON line
each appended to the results file as it comes in, resumable."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any, Protocol, cast

from kgviz.datasets.base import QARecord
from kgviz.errors import InputError, KgvizError
from kgviz.eval.plan import EvalPlan
from kgviz.eval.results_file import ResultsWriter
from kgviz.eval.resume import check_one_llm, check_same_settings, record_key
from kgviz.eval.rows import ResultRow, result_row, with_question
from kgviz.eval.summary import summarize
from kgviz.llm.deadline import allow_requests, cancel_requests
from kgviz.llm.errors import LLMCancelled, LLMError, LLMUnavailable, ModelIntegrityError
from kgviz.llm.streaming import streaming_to
from kgviz.reasoners.presets import DEFAULT_PRESET
from kgviz.runs.store import RunStore
from kgviz.session import Session
from kgviz.triplestore.client import SparqlUnavailable

# Failures that end a run at once (it resumes when run again): no LLM server or model, a model
# file that fails its check, a request cancelled (the lab's Stop), a KG endpoint gone.
FATAL = (LLMUnavailable, ModelIntegrityError, LLMCancelled, SparqlUnavailable)
# Consecutive failed questions after which the run stops (the LLM server is likely down).
MAX_FAILURES_IN_A_ROW = 3

Task = tuple[str, QARecord]  # (method, question)


class EvalProgress(Protocol):
    """What follows a run as it goes: `start` with the number of (method, question) pairs and
    how many the results file already had, `add` with each row written, `failed` with each
    question that failed (it stays pending), `finish` at the end."""

    def start(self, total: int, done: int) -> None: ...

    def add(self, row: ResultRow) -> None: ...

    def failed(self, method: str, qid: str, error: str) -> None: ...

    def finish(self) -> None: ...


class QuestionWatch(Protocol):
    """What follows each question live (in the thread answering it): `begin` as it starts,
    then each LLM call's stage (`call`) and the reply's text as it is written (`text`)."""

    def begin(self, method: str, record: QARecord) -> None: ...

    def call(self, stage: str) -> None: ...

    def text(self, chunk: str) -> None: ...


@dataclass
class EvalJob:
    """What one run answers and how: `settings` override every method's options (the rows
    record them); `questions` False leaves the question text and gold answers out of the rows
    (only the `qid`, for results published apart from the dataset)."""

    session: Session
    methods: Sequence[str]
    records: Sequence[QARecord]
    settings: dict[str, Any] = field(default_factory=dict)
    questions: bool = True
    workers: int = 1
    store: RunStore | None = None  # where each run is kept with its trace (`--keep-traces`)
    preset: str = DEFAULT_PRESET  # each method's preset, under `settings`
    watch: QuestionWatch | None = None  # told of each question and its live reply

    def answer(self, task: Task) -> ResultRow:
        """The row of one answered question; a failure raises (the question stays pending)."""
        method, record = task
        if self.watch is None:
            run = self.session.ask(method, record, self.settings, preset=self.preset)
        else:
            self.watch.begin(method, record)
            with streaming_to(self.watch.text, self.watch.call):
                run = self.session.ask(method, record, self.settings, preset=self.preset)
        row = result_row(run)
        row = with_question(row, record) if self.questions else row
        extra: dict[str, Any] = {"llm": self.session.llm}
        if self.settings:
            extra["settings"] = self.settings
        if self.store is not None:
            extra["run"] = self.store.save(run).id
        return cast(ResultRow, {**extra, **row})

    def keys(self) -> set[str]:
        return {record_key(m, r.qid) for m in self.methods for r in self.records}


def _fetches(session: Session) -> bool:
    """The KG is behind an endpoint: its questions are answered one at a time, since a walk
    grows the graph the others would be reading."""
    return not session.dataset.per_question_graphs and session.dataset.kg.fetches


def run_eval(
    session: Session,
    methods: Sequence[str],
    plan: EvalPlan,
    out: Path,
    progress: bool | EvalProgress = True,
    workers: int = 1,
    questions: bool = True,
    settings: dict[str, Any] | None = None,
    store: RunStore | None = None,
    stop: threading.Event | None = None,
    preset: str = DEFAULT_PRESET,
    watch: QuestionWatch | None = None,
) -> dict[str, Any]:
    """Answer every selected question with every method, appending one line each to `out`
    (each line names the LLM; a file holds one LLM's answers and one setting per method) and
    return the summary of `out`'s rows for these questions.

    The run is `out`'s one writer throughout (`ResultsWriter`). Questions already in `out` for a
    method are skipped, so an interrupted run resumes where it stopped. A question whose run
    fails (after the LLM backend's own retries) gets no line and stays pending for the next run;
    the summary counts such questions under `failed`. No LLM server or model, a model file that
    fails its check, three failed questions in a row, or a results file that cannot be written
    end the run. Ctrl-C cancels the requests in flight and stops at once. With `workers` > 1
    (capped by what the LLM backend serves at once) questions run concurrently; lines are
    written in question order as they finish. With a `store`, each run is kept there with its
    trace (`kgviz eval --keep-traces`) and its row names it (`run`). `progress` is a bar on
    stderr (True), nothing (False) or what the caller follows the run with (the lab's bar).
    Setting `stop` ends the run after the questions in flight (`LLMCancelled`; what was
    written stays, and the next run resumes from it). Each method runs its `preset` with
    `settings` over it; every row records the run's full setting (`RunSetting`). `watch` is
    told of each question as it starts and of its reply as it is written (the lab's batch).
    """
    job = EvalJob(
        session,
        methods,
        plan.select(session.dataset.questions(plan.split)),
        settings or {},
        questions,
        1 if _fetches(session) else max(1, min(workers, session.context.llm.parallel_requests)),
        store,
        preset,
        watch,
    )
    if not job.records:
        raise InputError(f"no question of {session.dataset.name} is selected by {plan.describe()}")
    for method in methods:  # bad options or presets fail here, before anything is written
        session.reasoner(method, **session.options_of(method, preset, job.settings))
    with ResultsWriter(out) as results:
        check_one_llm(results.rows, session.llm, out)
        check_same_settings(results.rows, methods, preset, job.settings, out)
        done = {record_key(row["method"], row["qid"]) for row in results.rows}
        todo = [(m, r) for m in methods for r in job.records if record_key(m, r.qid) not in done]
        failed = _answer_all(job, todo, results, progress, stop or threading.Event())
        keys = job.keys()
        summary = summarize([r for r in results.rows if record_key(r["method"], r["qid"]) in keys])
    summary["failed"] = failed
    return summary


def _answer_all(
    job: EvalJob,
    todo: list[Task],
    results: ResultsWriter,
    progress: bool | EvalProgress,
    stop: threading.Event,
) -> int:
    """Answer `todo` with `job.workers` in flight, appending each row in question order; the
    number of questions that failed."""
    if todo:  # load the index, encoder and LLM now, not inside the first question's time
        job.session.warm_up(any(job.session.reasoner(m).retrieves for m, _ in todo))
    failed = in_a_row = 0
    pool = ThreadPoolExecutor(job.workers)
    pending = enumerate(todo)
    submitted: dict[Future[ResultRow], tuple[int, Task]] = {}

    def submit(count: int) -> set[Future[ResultRow]]:
        futures = set()
        for position, task in islice(pending, count):
            future = pool.submit(job.answer, task)
            submitted[future] = (position, task)
            futures.add(future)
        return futures

    total = len(job.methods) * len(job.records)
    with _progress_bar(job, total, total - len(todo), progress) as bar:
        running = submit(2 * job.workers)
        try:
            while running:
                finished, running = wait(running, return_when=FIRST_COMPLETED)
                for future in sorted(finished, key=lambda f: submitted[f][0]):  # question order
                    method, record = submitted[future][1]
                    try:
                        row = future.result()
                    except FATAL:
                        raise
                    except KgvizError as error:
                        failed += 1
                        in_a_row += 1
                        bar.failed(method, record.qid, str(error))
                        if in_a_row >= MAX_FAILURES_IN_A_ROW:
                            raise LLMError(
                                f"{in_a_row} questions in a row failed, the last with: {error}"
                            ) from error
                        continue
                    in_a_row = 0
                    results.append(row)
                    bar.add(row)
                if stop.is_set():
                    raise LLMCancelled(
                        f"the evaluation was stopped with {bar.n} new rows in {results.path}; "
                        "run it again to go on"
                    )
                running |= submit(len(finished))
        except BaseException:
            cancel_requests(until_allowed=True)  # Ctrl-C or a fatal error: stop every request
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            allow_requests()
    return failed


class _TqdmProgress:
    """A progress bar on stderr with the running hits@1 of the rows this run wrote."""

    def __init__(self, description: str) -> None:
        self.description, self.hits, self.n = description, 0, 0
        self.bar: Any = None

    def start(self, total: int, done: int) -> None:
        from tqdm.auto import tqdm

        self.bar = tqdm(total=total, initial=done, unit="q", file=sys.stderr, desc=self.description)

    def add(self, row: ResultRow) -> None:
        self.hits, self.n = self.hits + bool(row["hit1"]), self.n + 1
        self.bar.update(1)
        self.bar.set_postfix(hits=f"{self.hits / self.n:.3f}")

    def failed(self, method: str, qid: str, error: str) -> None:
        """Said on stderr by `_Counter` (with or without the bar)."""

    def finish(self) -> None:
        self.bar.close()


class _Counter:
    """The count of rows this run wrote; each failure said on stderr; both passed on to what
    shows them (`shown`)."""

    def __init__(self, shown: EvalProgress | None) -> None:
        self.shown, self.n = shown, 0

    def start(self, total: int, done: int) -> None:
        if self.shown is not None:
            self.shown.start(total, done)

    def add(self, row: ResultRow) -> None:
        self.n += 1
        if self.shown is not None:
            self.shown.add(row)

    def failed(self, method: str, qid: str, error: str) -> None:
        print(
            f"kgviz eval: {method} {qid} failed (left for the next run): {error}", file=sys.stderr
        )
        if self.shown is not None:
            self.shown.failed(method, qid, error)

    def finish(self) -> None:
        if self.shown is not None:
            self.shown.finish()


@contextmanager
def _progress_bar(
    job: EvalJob, total: int, done: int, progress: bool | EvalProgress
) -> Iterator[_Counter]:
    """The counter of rows written, showing them on `progress` (True: a bar on stderr)."""
    if progress is True:
        shown: EvalProgress | None = _TqdmProgress(
            f"eval {job.session.dataset.name} x{job.workers}"
        )
    else:
        shown = progress or None
    counter = _Counter(shown)
    counter.start(total, done)
    try:
        yield counter
    finally:
        counter.finish()
