"""Runs you keep: every run saved with its trace under a workspace folder (`KGVIZ_RUNS`, default
`./kgviz-runs/`), listed by an index of what names and judges it.

Each run is one JSON file `runs/<id>.json` (written atomically): its index entry, its trace and
its question. `index.jsonl` gathers the entries, one line per run, and later lines that tag or
annotate a run; a line is appended whole under a lock, so the lab, `kgviz ask` and `kgviz eval`
may save at once. A line or run file that cannot be read is skipped with one warning, never
fatal. A run's id is given once and kept: when it was made, its method and 8 random hex digits.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from kgviz.atomic import write_text_atomic
from kgviz.datasets.base import QARecord
from kgviz.errors import KgvizError
from kgviz.run import EDIT, EvidenceEdit, Run, judged_run
from kgviz.trace import Trace
from kgviz.trace_io import read_saved
from kgviz.version import code_version

log = logging.getLogger(__name__)
RUNS_ENV = "KGVIZ_RUNS"
FORMAT, VERSION = "kgviz-run", 1
LOCK_WAIT_S = 10.0  # how long a save waits for another process's append


def runs_root() -> Path:
    """The runs folder: `KGVIZ_RUNS`, else `kgviz-runs/` in the working folder."""
    configured = os.environ.get(RUNS_ENV)
    return Path(configured).expanduser().resolve() if configured else Path.cwd() / "kgviz-runs"


@dataclass
class RunEntry:
    """A run's index entry: what names it (dataset, question, method, options, LLM, when, code
    version, parent and edit for a regenerated run) and how it fared (hits@1, hit, F1 with gold
    answers; grounded; evidence size, tokens, seconds, whether replies were replayed)."""

    id: str
    dataset: str
    question: str
    method: str
    options: dict[str, Any]
    llm: str
    hits1: bool | None
    hit: bool | None
    f1: float | None
    grounded: bool | None
    evidence: int
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    cached: bool
    time: str
    code_version: str
    parent: str | None = None
    edit: dict[str, list[list[str]]] | None = None
    tags: list[str] = field(default_factory=list)
    note: str = ""

    @classmethod
    def of(cls, run: Run, run_id: str, parent: str | None, edit: EvidenceEdit | None) -> RunEntry:
        trace, score = run.trace, run.outcome.score
        return cls(
            id=run_id,
            dataset=trace.dataset,
            question=trace.question,
            method=trace.method,
            options=dict(run.options),
            llm=run.llm,
            hits1=None if score is None else score.hit1,
            hit=None if score is None else score.hit,
            f1=None if score is None else round(score.f1, 4),
            grounded=run.outcome.grounded,
            evidence=len(trace.evidence),
            prompt_tokens=trace.prompt_tokens,
            completion_tokens=trace.completion_tokens,
            seconds=round(trace.timings.get("total", 0.0), 3),
            cached=any(call.cached for call in trace.llm_calls),
            time=time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(run.finished)),
            code_version=code_version(),
            parent=parent,
            edit=None
            if edit is None
            else {k: [list(t) for t in v] for k, v in asdict(edit).items()},
        )


class RunStore:
    """The runs under `root` (default: `runs_root()`)."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or runs_root()
        self.index = self.root / "index.jsonl"

    def path(self, run_id: str) -> Path:
        if not run_id or "/" in run_id or run_id.startswith("."):
            raise KgvizError(f"{run_id!r} is not a run id")
        return self.root / "runs" / f"{run_id}.json"

    def save(self, run: Run, parent: str | None = None) -> RunEntry:
        """Keep `run` (`parent`: the run it was regenerated from): its file first, then its
        index line; its entry."""
        saved = run.trace.saved()
        when = time.strftime("%Y%m%d-%H%M%S", time.localtime(run.finished))
        digest = uuid.uuid4().hex[:8]  # two runs alike, kept in one second, are still two
        entry = RunEntry.of(
            run, f"{when}-{run.method}-{digest}", parent, run.trace.stages.get(EDIT)
        )
        record = run.record
        data = {
            "format": FORMAT,
            "version": VERSION,
            "entry": asdict(entry),
            "record": None if record is None else _record_json(record),
            "retrieves": run.retrieves,
            "trace": saved,
        }
        write_text_atomic(self.path(entry.id), json.dumps(data, ensure_ascii=False))
        self._append({"run": asdict(entry)})
        return entry

    def annotate(
        self, run_id: str, tags: Sequence[str] | None = None, note: str | None = None
    ) -> None:
        """Set a run's tags and/or note (a later line of the index)."""
        self.entry(run_id)  # an unknown id is an error
        change: dict[str, Any] = {"id": run_id}
        if tags is not None:
            change["tags"] = sorted(set(tags))
        if note is not None:
            change["note"] = note
        self._append({"annotate": change})

    def entries(self) -> list[RunEntry]:
        """Every run's entry, oldest first, with its latest tags and note."""
        entries: dict[str, RunEntry] = {}
        for number, line in self._lines():
            try:
                event = json.loads(line)
                if "run" in event:
                    entry = RunEntry(**event["run"])
                    entries[entry.id] = entry
                elif "annotate" in event and event["annotate"]["id"] in entries:
                    change = event["annotate"]
                    target = entries[change["id"]]
                    target.tags = list(change.get("tags", target.tags))
                    target.note = str(change.get("note", target.note))
            except (ValueError, TypeError, KeyError) as error:
                log.warning(
                    "kgviz: %s:%d is not a run entry (%s); skipped", self.index, number, error
                )
        return list(entries.values())

    def entry(self, run_id: str) -> RunEntry:
        for entry in self.entries():
            if entry.id == run_id:
                return entry
        raise KgvizError(f"no run {run_id!r} in {self.root}")

    def load(self, run_id: str) -> Run:
        """The kept run `run_id`, judged again from its trace and question (its graph is not
        loaded: `Run.kg` is None)."""
        path = self.path(run_id)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise KgvizError(f"no run {run_id!r} in {self.root}") from None
        except (OSError, ValueError) as error:
            raise KgvizError(f"{path} is not a readable run ({error})") from error
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise KgvizError(f"{path} is not a kgviz run")
        trace = trace_from_saved(data["trace"], str(path))
        entry = RunEntry(**data["entry"])
        record = None if data.get("record") is None else QARecord(**_record_fields(data["record"]))
        return judged_run(
            trace,
            record,
            retrieves=bool(data.get("retrieves", True)),
            options=entry.options,
            llm=entry.llm,
        )

    def _lines(self) -> Iterator[tuple[int, str]]:
        try:
            text = self.index.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        except (OSError, UnicodeDecodeError) as error:
            raise KgvizError(f"cannot read {self.index}: {error}") from error
        for number, line in enumerate(text.split("\n"), start=1):
            if line.strip():
                yield number, line

    def _append(self, event: Mapping[str, Any]) -> None:
        line = (json.dumps(event, ensure_ascii=False) + "\n").encode("utf-8")
        with _locked_for_append(self.index) as fd:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                line = b"\n" + line  # a torn last line stays a line of its own
            try:
                os.write(fd, line)
                os.fsync(fd)
            except OSError as error:
                os.ftruncate(fd, size)
                raise KgvizError(
                    f"could not write {self.index}: {error.strerror}; its earlier runs are kept"
                ) from error


@contextmanager
def _locked_for_append(path: Path) -> Iterator[int]:
    """`path` opened for appending under an exclusive lock, waited for up to `LOCK_WAIT_S`."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
    except OSError as error:
        raise KgvizError(f"cannot write {path}: {error.strerror}") from error
    try:
        deadline = time.monotonic() + LOCK_WAIT_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise KgvizError(f"{path} stayed locked by another process") from None
                time.sleep(0.01)
        yield fd
    finally:
        os.close(fd)


def trace_from_saved(data: Any, where: str) -> Trace:
    """A trace from the data `Trace.saved` made."""
    return Trace.from_saved(*read_saved(data, where), where=where)


def _record_json(record: QARecord) -> dict[str, Any]:
    return {
        "question": record.question,
        "answers": list(record.answers),
        "topic_entities": list(record.topic_entities),
        "qid": record.qid,
        "qtype": record.qtype,
        "hops": record.hops,
    }


def _record_fields(data: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "question": str(data["question"]),
        "answers": tuple(map(str, data["answers"])),
        "topic_entities": tuple(map(str, data.get("topic_entities", ()))),
        "qid": str(data.get("qid", "")),
        "qtype": data.get("qtype"),
        "hops": data.get("hops"),
    }
