"""A session: one dataset, one LLM and the reasoners built over them. `Session.ask` is the one
road from a question to a scored run, for the CLI, the lab, the demo and evaluations."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from kgviz.datasets import Dataset, get_dataset
from kgviz.datasets.base import QARecord, split_topic_marks
from kgviz.embed.encoder import get_encoder
from kgviz.embed.index import IndexKind
from kgviz.errors import InputError
from kgviz.reasoners.base import Reasoner, ReasonerContext
from kgviz.reasoners.presets import DEFAULT_PRESET, with_preset
from kgviz.reasoners.registry import make_reasoner, method_spec
from kgviz.runs.run import EvidenceEdit, Run, judged_run
from kgviz.runs.setting import llm_identity, run_setting
from kgviz.trace import EDIT, StringTriple, Trace

if TYPE_CHECKING:
    from kgviz.llm.cache import CacheMode

Listener = Callable[[str, Trace], None]
# Contexts over questions' own graphs kept at once (the lab's compare asks one question often).
QUESTION_CONTEXTS_KEPT = 4


@dataclass
class Session:
    dataset: Dataset
    context: ReasonerContext
    llm_reason: str
    _reasoners: dict[str, Reasoner] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _warm: set[str] = field(default_factory=set, repr=False)
    _question_contexts: dict[str, ReasonerContext] = field(default_factory=dict, repr=False)

    @property
    def llm(self) -> str:
        """`backend:model` of the session's LLM."""
        return llm_identity(self.context.llm)

    def warm_up(self, retrieves: bool = True, models: bool = True) -> None:
        """Load what the first question would otherwise load inside its own time: the vector
        index (when a method retrieves) and, with `models`, the sentence encoder and the LLM.
        Without `models` they load on first use, so a run replayed from the caches loads
        neither. Each is loaded once."""
        wanted = (["index", "encoder"] if retrieves else []) + ["llm"]
        for part in wanted if models else [p for p in wanted if p == "index"]:
            if part in self._warm:
                continue
            if part == "index" and not self.dataset.per_question_graphs:
                self.context.index  # noqa: B018  (loaded from disk, or built)
            elif part == "encoder":
                get_encoder().load()
            elif part == "llm":
                self.context.llm.warm_up()
            self._warm.add(part)

    def reasoner(self, method: str, **config: Any) -> Reasoner:
        """The reasoner for `method` with these options, built once per setting (bad options
        are a clear error here)."""
        key = f"{method}\t{json.dumps(config, sort_keys=True, default=repr)}"
        with self._lock:
            if key not in self._reasoners:
                self._reasoners[key] = make_reasoner(method, self.context, **config)
            return self._reasoners[key]

    @staticmethod
    def options_of(method: str, preset: str, options: Mapping[str, Any]) -> dict[str, Any]:
        """The options a run of `method` uses: `preset`'s values with `options` over them (an
        unknown preset is a one-line error)."""
        return with_preset(method_spec(method).preset(preset), options)

    def question_context(self, record: QARecord | None) -> ReasonerContext:
        """The context a run over `record` uses: over the question's own graph where the dataset
        gives each question one (the last few are kept, so that every method asked the same
        question shares its graph and index), else the session's."""
        if record is None or not self.dataset.per_question_graphs:
            return self.context
        with self._lock:
            context = self._question_contexts.pop(record.qid, None)
        context = context or self.context.for_question(record)
        with self._lock:
            self._question_contexts[record.qid] = context
            while len(self._question_contexts) > QUESTION_CONTEXTS_KEPT:
                del self._question_contexts[next(iter(self._question_contexts))]
        return context

    def question_reasoner(self, method: str, record: QARecord | None, **config: Any) -> Reasoner:
        """The reasoner for `method` on one question: over the question's own graph where the
        dataset gives each question one (then the question must be one of the dataset's)."""
        reasoner = self.reasoner(method, **config)
        if record is not None:
            return reasoner.with_context(self.question_context(record))
        if self.dataset.per_question_graphs:
            raise InputError(
                f"{self.dataset.name} gives each question its own graph: ask one of its "
                "questions (pick an example, or give its text or id)"
            )
        return reasoner

    @cached_property
    def _questions(self) -> dict[str, QARecord]:
        """Every question of every split by its case-folded text and id (first split wins)."""
        found: dict[str, QARecord] = {}
        for split in self.dataset.available_splits():
            for record in self.dataset.questions(split):
                qid = record.qid.casefold()
                for key in (record.question.casefold(), qid, qid.rpartition("/")[2]):
                    found.setdefault(key, record)
        return found

    def find_question(self, text: str) -> QARecord | None:
        """The dataset question with this text or id (case-insensitive), if any."""
        return self._questions.get(text.strip().casefold())

    def ask(
        self,
        method: str,
        question: str | QARecord,
        options: Mapping[str, Any] | None = None,
        *,
        listener: Listener | None = None,
        topics: Sequence[str] = (),
        recording: bool = False,
        lazy: bool = False,
        preset: str = DEFAULT_PRESET,
    ) -> Run:
        """Answer `question` with `method` under `preset` (its values, then `options` over
        them) and judge the run; the trace records the run's setting (`RunSetting`).

        A question given as text is looked up among the dataset's questions (by text or id) so
        that its gold answers and marked topic entities are known; `[Name]` in the text marks a
        topic entity. `topics` override the record's. `recording` adds the options that make the
        method record what its views draw (the lab, pages, the demo). `listener(stage, trace)`
        hears of each stage as it ends. `lazy` loads the encoder and the LLM only when a text or
        request misses its cache (a one-off `kgviz ask`); by default they load before the run, so
        that its stage timings are its own."""
        options = self.options_of(method, preset, options or {})
        record, text, marked = self._record_of(question)
        config = {**method_spec(method).recording_options, **options} if recording else options
        reasoner = self.question_reasoner(method, record, **config)
        self.warm_up(reasoner.retrieves, models=not lazy)
        trace = reasoner.run(
            text,
            topic_entities=tuple(topics) or marked or (record.topic_entities if record else ()),
            listener=listener,
            gold=record.answers if record else (),
        )
        trace.setting = run_setting(reasoner, preset, self.context.llm, trace).as_json()
        return judged_run(
            trace,
            record,
            retrieves=reasoner.retrieves,
            options=options,
            llm=self.llm,
            kg=reasoner.context.kg,
        )

    def regenerate(
        self,
        run: Run,
        dropped: Sequence[StringTriple] = (),
        added: Sequence[StringTriple] = (),
        listener: Listener | None = None,
    ) -> Run:
        """`run`'s generation stage again with its evidence edited (`dropped` triples taken
        out, `added` ones put in), the same prompt format and this session's LLM: a new run,
        judged as any other, whose trace records the edit."""
        missing = [t for t in dropped if t not in run.trace.evidence]
        if missing:
            raise InputError(f"not in the run's evidence: {' | '.join(missing[0])}")
        gone = set(dropped)
        evidence = [t for t in run.trace.evidence if t not in gone] + list(added)
        reasoner = self.question_reasoner(run.method, run.record, **run.options)
        self.warm_up(retrieves=False)
        trace = reasoner.regenerate(run.trace, evidence, listener)
        trace.record(EDIT, EvidenceEdit(tuple(dropped), tuple(added)))
        trace.setting = run_setting(reasoner, run.preset, self.context.llm, trace).as_json()
        return judged_run(
            trace,
            run.record,
            retrieves=reasoner.retrieves,
            options=run.options,
            llm=self.llm,
            kg=reasoner.context.kg,
        )

    def _record_of(self, question: str | QARecord) -> tuple[QARecord | None, str, tuple[str, ...]]:
        """The question's record (if the dataset has it), its plain text and marked topics."""
        if isinstance(question, QARecord):
            return question, question.question, ()
        check_question(question)
        text, marked = split_topic_marks(question)
        record = self.find_question(question) or self.find_question(text)
        return record, record.question if record else text, marked


MAX_QUESTION_CHARS = 2000


def check_question(text: str) -> None:
    """A one-line error for a question that is blank or longer than `MAX_QUESTION_CHARS`.

    >>> check_question("who directed Big")
    >>> check_question("   ")
    Traceback (most recent call last):
    ...
    kgviz.errors.InputError: the question is empty: type a question
    """
    if not text.strip():
        raise InputError("the question is empty: type a question")
    if len(text) > MAX_QUESTION_CHARS:
        raise InputError(
            f"the question has {len(text):,} characters; at most {MAX_QUESTION_CHARS:,}"
        )


def open_session(
    dataset_name: str,
    llm_spec: str = "auto",
    cache_mode: CacheMode = "rw",
    index_kind: IndexKind | None = None,
    milvus_uri: str | None = None,
    llm_slots: int | None = None,
) -> Session:
    """Load the dataset's KG and resolve the LLM spec (the model itself loads on first use).

    `index_kind` and `milvus_uri` choose the vector index (see `ReasonerContext`); `llm_slots`
    how many requests the offline model serves at once."""
    from kgviz.llm.select import choose_llm

    dataset = get_dataset(dataset_name)
    dataset.check_available()
    choice = choose_llm(llm_spec, cache_mode=cache_mode, slots=llm_slots)
    context = ReasonerContext(dataset, choice.llm, index_kind=index_kind, milvus_uri=milvus_uri)
    return Session(dataset, context, choice.reason)
