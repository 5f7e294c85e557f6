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
import re
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from kgviz.datasets.base import QARecord
from kgviz.errors import KgvizError, RunStoreError
from kgviz.reasoners.presets import DEFAULT_PRESET
from kgviz.runs.run import EvidenceEdit, Run, judged_run
from kgviz.storage.atomic import write_text_atomic
from kgviz.storage.cache_repair import set_aside
from kgviz.trace import EDIT, Trace
from kgviz.trace.io import read_saved
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
    preset: str = DEFAULT_PRESET
    llm_calls: int = 0  # 0 in entries kept before calls were counted
    cached_calls: int = 0

    @property
    def finished(self) -> float:
        """When the run finished, in epoch seconds (`time` is local time to the second)."""
        return time.mktime(time.strptime(self.time, "%Y-%m-%dT%H:%M:%S"))

    @property
    def replayed(self) -> str:
        """How many of its LLM calls were replayed from the reply cache: "no", "all 3",
        "1 of 3" ("yes" or "no" for entries kept before calls were counted)."""
        if not self.llm_calls:
            return "yes" if self.cached else "no"
        if not self.cached_calls:
            return "no"
        if self.cached_calls == self.llm_calls:
            return f"all {self.llm_calls}"
        return f"{self.cached_calls} of {self.llm_calls}"

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
            preset=run.preset,
            llm_calls=len(trace.llm_calls),
            cached_calls=sum(call.cached for call in trace.llm_calls),
        )


class RunStore:
    """The runs under `root` (default: `runs_root()`)."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or runs_root()
        self.index = self.root / "index.jsonl"

    def path(self, run_id: str) -> Path:
        if not run_id or "/" in run_id or run_id.startswith("."):
            raise RunStoreError(f"{run_id!r} is not a run id")
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
        path = self.path(entry.id)
        write_text_atomic(path, json.dumps(data, ensure_ascii=False))
        try:
            self._append({"run": asdict(entry)})
        except KgvizError:
            path.unlink(missing_ok=True)  # a run file no index line names is not left behind
            raise
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
        """Every run's entry, oldest first, with its latest tags and note; a line that is not
        one (not UTF-8, not JSON, not an entry) is skipped with a warning naming it."""
        entries: dict[str, RunEntry] = {}
        for number, raw in self._lines():
            where = f"{self.index}:{number}"
            try:
                event = json.loads(raw.decode("utf-8"))
                if not isinstance(event, dict):
                    raise RunFileError(f"{where} is not a JSON object")
                if "run" in event:
                    entry = entry_from_json(event["run"], where)
                    entries[entry.id] = entry
                elif "annotate" in event:
                    self._annotated(entries, event["annotate"], where)
            except (ValueError, RunFileError) as error:  # UnicodeDecodeError is a ValueError
                log.warning("kgviz: %s is not a run entry (%s); skipped", where, first_line(error))
        return list(entries.values())

    @staticmethod
    def _annotated(entries: dict[str, RunEntry], change: Any, where: str) -> None:
        """Apply one annotation line (tags and/or a note) to the entry it names."""
        if not isinstance(change, dict) or not isinstance(change.get("id"), str):
            raise RunFileError(f"{where}: an annotation names no run id")
        target = entries.get(change["id"])
        if target is None:
            return
        tags, note = change.get("tags", target.tags), change.get("note", target.note)
        if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
            raise RunFileError(f"{where}: tags are not a list of texts")
        if not isinstance(note, str):
            raise RunFileError(f"{where}: the note is not a text")
        target.tags, target.note = list(tags), note

    def entry(self, run_id: str) -> RunEntry:
        for entry in self.entries():
            if entry.id == run_id:
                return entry
        raise RunStoreError(f"no run {run_id!r} in {self.root}")

    def load(self, run_id: str) -> Run:
        """The kept run `run_id`, judged again from its trace and question (its graph is not
        loaded: `Run.kg` is None)."""
        path = self.path(run_id)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise RunStoreError(f"no run {run_id!r} in {self.root}") from None
        except (OSError, ValueError) as error:
            raise RunStoreError(f"{path} is not a readable run ({error})") from error
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise RunStoreError(f"{path} is not a kgviz run")
        try:
            entry = entry_from_json(data.get("entry"), f"{path}: entry")
            record = record_from_json(data.get("record"), f"{path}: record")
            trace = trace_from_saved(data.get("trace"), str(path))
            return judged_run(
                trace,
                record,
                retrieves=bool(data.get("retrieves", True)),
                options=entry.options,
                llm=entry.llm,
                finished=entry.finished,
            )
        except (RunFileError, ValueError, TypeError, KeyError, AttributeError) as error:
            set_aside(path, error)  # what no kgviz can read (a trace of another version can)
            raise RunStoreError(
                f"{first_line(error)} (the run file is set aside; the other runs are kept)"
            ) from error

    def _lines(self) -> Iterator[tuple[int, bytes]]:
        """The index's non-blank lines as bytes, numbered: each is decoded on its own, so a bad
        byte costs its line only."""
        try:
            data = self.index.read_bytes()
        except FileNotFoundError:
            return
        except OSError as error:
            raise RunStoreError(f"cannot read {self.index}: {error.strerror or error}") from error
        for number, line in enumerate(data.split(b"\n"), start=1):
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
                raise RunStoreError(
                    f"could not write {self.index}: {error.strerror}; its earlier runs are kept"
                ) from error


@contextmanager
def _locked_for_append(path: Path) -> Iterator[int]:
    """`path` opened for appending under an exclusive lock, waited for up to `LOCK_WAIT_S`."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
    except OSError as error:
        raise RunStoreError(f"cannot write {path}: {error.strerror}") from error
    try:
        deadline = time.monotonic() + LOCK_WAIT_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise RunStoreError(f"{path} stayed locked by another process") from None
                time.sleep(0.01)
        yield fd
    finally:
        os.close(fd)


def trace_from_saved(data: Any, where: str) -> Trace:
    """A trace from the data `Trace.saved` made."""
    return Trace.from_saved(*read_saved(data, where), where=where)


class RunFileError(RunStoreError):
    """A run file or index line that parses but does not hold what it should."""


def first_line(error: BaseException) -> str:
    return (str(error).splitlines() or [type(error).__name__])[0]


ENTRY_TYPES: dict[str, tuple[type, ...]] = {
    "id": (str,),
    "dataset": (str,),
    "question": (str,),
    "method": (str,),
    "options": (dict,),
    "llm": (str,),
    "hits1": (bool, type(None)),
    "hit": (bool, type(None)),
    "f1": (int, float, type(None)),
    "grounded": (bool, type(None)),
    "evidence": (int,),
    "prompt_tokens": (int,),
    "completion_tokens": (int,),
    "seconds": (int, float),
    "cached": (bool,),
    "time": (str,),
    "code_version": (str,),
    "parent": (str, type(None)),
    "edit": (dict, type(None)),
    "tags": (list,),
    "note": (str,),
    "preset": (str,),
    "llm_calls": (int,),
    "cached_calls": (int,),
}
# older entries may lack these
ENTRY_DEFAULTS = frozenset(
    {"parent", "edit", "tags", "note", "preset", "llm_calls", "cached_calls"}
)
RUN_ID = re.compile(r"[A-Za-z0-9][\w.-]{0,200}")


def entry_from_json(data: Any, where: str) -> RunEntry:
    """The `RunEntry` in `data`, each field of its type; keys this kgviz does not know (a newer
    one's) are left out. `RunFileError` names `where` and the first field that is wrong."""
    if not isinstance(data, dict):
        raise RunFileError(f"{where} is not an entry (no JSON object)")
    known: dict[str, Any] = {}
    for name, kinds in ENTRY_TYPES.items():
        if name not in data:
            if name in ENTRY_DEFAULTS:
                continue
            raise RunFileError(f"{where} has no {name}")
        value = data[name]
        wrong_bool = isinstance(value, bool) and bool not in kinds
        if not isinstance(value, kinds) or wrong_bool:
            raise RunFileError(
                f"{where}: {name} is {type(value).__name__}, not {kinds[0].__name__}"
            )
        known[name] = value
    if not RUN_ID.fullmatch(known["id"]):
        raise RunFileError(f"{where}: {known['id']!r} is not a run id")
    return RunEntry(**known)


def record_from_json(data: Any, where: str) -> QARecord | None:
    """The question record of a run file (None for a run asked without one)."""
    if data is None:
        return None
    if not isinstance(data, dict):
        raise RunFileError(f"{where} is not a question record")
    if not isinstance(data.get("question"), str) or not isinstance(data.get("answers"), list):
        raise RunFileError(f"{where} has no question and answers")
    return QARecord(**_record_fields(data))


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
