"""The Reasoner protocol: `run(question) -> Trace`, over a shared context (KG, index, LLM)."""

from __future__ import annotations

import os
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import Field, dataclass, field, fields
from functools import cached_property
from pathlib import Path
from types import UnionType
from typing import (
    Any,
    ClassVar,
    Generic,
    Literal,
    Self,
    TypeVar,
    Union,
    cast,
    get_args,
    get_origin,
    get_type_hints,
)

from kgviz.checkpoints.card import trained_on
from kgviz.checkpoints.store import card_sha256, checkpoint_dir, dataset_key, find_checkpoint
from kgviz.datasets.base import Dataset, QARecord
from kgviz.embed.index import IndexKind
from kgviz.embed.kg_index import KGIndex
from kgviz.errors import InputError, OptionError
from kgviz.kg.graph import KnowledgeGraph
from kgviz.llm.base import LLM
from kgviz.reasoners.answers import NameLookup, listed_names
from kgviz.reasoners.citations import record_citations
from kgviz.trace import StringTriple, Trace

T = TypeVar("T")
BORROWED_CHECKPOINT = ": no checkpoint trained on "


def borrowed_checkpoint_note(method: str, dataset: str, trained: str, command: str = "") -> str:
    """What a run says when `method` runs on `dataset` with a checkpoint trained on another
    (`command` trains it; default `kgviz train METHOD`)."""
    command = command or f"kgviz train {method}"
    return (
        f"{method}{BORROWED_CHECKPOINT}{dataset}; using the one trained on {trained} "
        f"(train one with `{command} --dataset {dataset}`)"
    )


def is_borrowed_checkpoint_note(warning: str) -> bool:
    """Whether a trace warning is `borrowed_checkpoint_note`'s: information that holds for every
    question of the dataset, rather than about one run."""
    return BORROWED_CHECKPOINT in warning and "; using the one trained on " in warning


class ReasonerContext:
    """What reasoners share for one dataset: its KG, its vector index (built lazily), an LLM, and
    a memo of what methods derive from the KG once (name tables, text features, ego indexes).

    The index kind (`flat`, `hnsw` or `milvus`) and a Milvus server URI default to the
    environment's `KGVIZ_INDEX_KIND` and `KGVIZ_MILVUS_URI`, so the CLI, the lab and the
    evaluation runner all follow one setting.
    """

    def __init__(
        self,
        dataset: Dataset,
        llm: LLM | None,
        index: KGIndex | None = None,
        index_kind: IndexKind | None = None,
        milvus_uri: str | None = None,
        graph: KnowledgeGraph | None = None,
    ) -> None:
        self.dataset = dataset
        self.graph = graph
        self._llm = llm
        kind = index_kind or os.environ.get("KGVIZ_INDEX_KIND") or "flat"
        if kind not in get_args(IndexKind):
            raise OptionError(
                f"unknown index kind {kind!r}; use one of {', '.join(get_args(IndexKind))}"
            )
        self.index_kind: IndexKind = cast(IndexKind, kind)
        self.milvus_uri = milvus_uri or os.environ.get("KGVIZ_MILVUS_URI") or None
        self._index = index
        self._memo: dict[str, Any] = {}
        self._memo_lock = threading.RLock()  # a build may use the memo too

    @property
    def llm(self) -> LLM:
        """The LLM; a context made without one (retrieval only) says so when asked for it."""
        if self._llm is None:
            raise InputError("this context has no LLM (it was made for retrieval only)")
        return self._llm

    @property
    def reader(self) -> LLM | None:
        """The LLM, or None in a context made for retrieval only."""
        return self._llm

    @property
    def llm_model(self) -> str:
        """The LLM's model name ('' in a context made for retrieval only)."""
        return "" if self._llm is None else self._llm.model

    @property
    def kg(self) -> KnowledgeGraph:
        """The dataset's KG, or the one question's graph of a `for_question` context."""
        return self.graph if self.graph is not None else self.dataset.kg

    @property
    def index(self) -> KGIndex:
        """The vector index of the KG's entity and relation names, built on first use."""
        return self.memo("index", self._build_index)

    def _build_index(self) -> KGIndex:
        if self._index is not None:
            return self._index
        if self.graph is not None:  # one question's small graph: a flat index, kept in memory
            return KGIndex.build(self.graph, persist=False)
        return KGIndex.build(
            self.kg, kind=self.index_kind, progress=True, milvus_uri=self.milvus_uri
        )

    def memo(self, key: str, build: Callable[[], T]) -> T:
        """What `build()` returns, built once per context under `key` (thread-safe): for what a
        method derives from this context's KG and shares across questions."""
        with self._memo_lock:
            if key not in self._memo:
                self._memo[key] = build()
            return cast(T, self._memo[key])

    def for_question(self, record: QARecord) -> ReasonerContext:
        """This context, or, where each question has its own graph, a context over that graph
        sharing the LLM."""
        if not self.dataset.per_question_graphs:
            return self
        return ReasonerContext(self.dataset, self._llm, graph=self.dataset.question_graph(record))


def accepts(hint: Any, value: Any) -> bool:
    """Whether `value` fits the type hint of a config field (int counts as float, not bool).

    >>> accepts(float, 3), accepts(int, True), accepts(int | Literal["auto"], "auto")
    (True, False, True)
    """
    origin = get_origin(hint)
    if origin is Literal:
        return value in get_args(hint)
    if origin in (Union, UnionType):
        return any(accepts(option, value) for option in get_args(hint))
    if hint is type(None):
        return value is None
    if hint in (int, float):
        return isinstance(value, (int, float) if hint is float else int) and not isinstance(
            value, bool
        )
    if origin is not None:
        return isinstance(value, origin)
    return isinstance(value, hint) if isinstance(hint, type) else True


def describe_hint(hint: Any) -> str:
    """A config field's type in words.

    >>> describe_hint(int), describe_hint(Literal["qa", "verify"])
    ('int', 'one of qa, verify')
    >>> describe_hint(int | Literal["auto"])
    'int or one of auto'
    """
    if get_origin(hint) is Literal:
        return "one of " + ", ".join(map(str, get_args(hint)))
    if get_origin(hint) in (Union, UnionType):
        return " or ".join(
            "None" if option is type(None) else describe_hint(option) for option in get_args(hint)
        )
    return getattr(hint, "__name__", str(hint).replace("typing.", ""))


Bounds = tuple[float, float]  # the lowest and highest value a numeric option takes
# Ranges several methods' options share
HOPS: Bounds = (1, 4)  # hops around the topic entities (3 answer MetaQA's hardest questions)
ANSWER_TOKENS: Bounds = (1, 8192)  # tokens in an LLM's answer
SEEDS: Bounds = (0, 2**32 - 1)


def option(default: T, help: str, range: Bounds | None = None) -> T:
    """A config field with its help text (shown by `kgviz methods` and under the lab's widget) and,
    for a number, the `range` it must lie in, both ends included (checked when a reasoner is
    built, and shown with the help)."""
    metadata: dict[str, Any] = {"help": help}
    if range is not None:
        metadata["range"] = range
    return field(default=default, metadata=metadata)


def option_range(item: Field[Any]) -> Bounds | None:
    """The range of a config field declared with one."""
    return item.metadata.get("range")


def describe_range(bounds: Bounds) -> str:
    """A numeric option's range in words.

    >>> describe_range((1, 1000))
    'at least 1 and at most 1,000'
    >>> describe_range((0.01, 3600))
    'at least 0.01 and at most 3,600'
    """
    low, high = (f"{end:,}" if isinstance(end, int) else f"{end:g}" for end in bounds)
    return f"at least {low} and at most {high}"


def option_help(item: Field[Any]) -> str:
    """The help text of a config field, with its range (empty for a field declared without
    `option`)."""
    text = str(item.metadata.get("help", ""))
    bounds = option_range(item)
    return f"{text}; {describe_range(bounds)}" if bounds else text


@dataclass
class ReasonerConfig:
    """Hyper-parameters of a method; each reasoner subclasses this with its own fields."""

    @classmethod
    def check_types(cls, method: str, overrides: dict[str, Any]) -> None:
        """A clear error for the first override whose value does not fit its field's type."""
        hints = get_type_hints(cls)
        for name, value in overrides.items():
            if not accepts(hints[name], value):
                raise OptionError(
                    f"{method}: {name} must be {describe_hint(hints[name])}, not {value!r}"
                )

    def check_ranges(self, method: str) -> None:
        """A clear error for the first numeric field outside its declared range."""
        for item in fields(self):
            bounds, value = option_range(item), getattr(self, item.name)
            if bounds is None or isinstance(value, bool) or not isinstance(value, (int, float)):
                continue
            if not bounds[0] <= value <= bounds[1]:
                raise OptionError(
                    f"{method}: {item.name} must be {describe_range(bounds)}, not {value!r}"
                )


@dataclass
class AnsweringConfig(ReasonerConfig):
    """The options of a method whose LLM commits to answers (`prompting.generate_answer`)."""

    answer_reask: bool = option(
        True,
        "re-ask once when the answer reply commits to nothing, saying what was wrong (not in "
        "the papers; docs/results.md has its effect)",
    )


@dataclass
class GroundedConfig(AnsweringConfig):
    """The options of a method that links the question to KG entities (grounding) and answers
    with the LLM."""

    on_ungrounded: Literal["warn", "abstain"] = option(
        "warn",
        "a question naming something this KG does not hold: warn and answer anyway, or abstain "
        "(no answer, no LLM call after the check)",
    )


@dataclass
class ListAnsweringConfig(GroundedConfig):
    """The options of a grounded method whose answer call may be a constrained JSON list of
    names (`prompting.generate_listed_answer`)."""

    answer_list: bool = option(
        True,
        "the answer call returns a JSON list of the evidence's names, most likely first, and "
        "stops there (kgviz's; with a reader that constrains JSON while decoding, so not the "
        "white-box hf reader); off: the method's own free-text answer prompt",
    )

    def lists_answers(self, llm: LLM) -> bool:
        """Whether the answer call is the constrained JSON list with the reader `llm`."""
        return self.answer_list and llm.constrains_json


class Abstained(Exception):
    """Raised inside `retrieve` when the question is not grounded in the KG and the method's
    `on_ungrounded` is "abstain": the run ends with no answer and makes no further LLM call."""


FoundT = TypeVar("FoundT")


class Reasoner(ABC, Generic[FoundT]):
    """A KG-RAG method: `retrieve` records its retrieval stages and returns what it found (a
    `FoundT`), `generate` prompts the LLM with it; `run` times both and the whole."""

    name: ClassVar[str]
    config_class: ClassVar[type[ReasonerConfig]] = ReasonerConfig
    retrieves: ClassVar[bool] = True  # False: answers come from the LLM alone

    def __init__(self, context: ReasonerContext, config: ReasonerConfig | None = None) -> None:
        self.context = context
        self.config = config or self.config_class()
        self.config.check_ranges(self.name)

    @classmethod
    def from_config(cls, context: ReasonerContext, **overrides: Any) -> Self:
        """Build with `config_class(**overrides)`; unknown keys are a clear error."""
        known = {f.name for f in fields(cls.config_class)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise OptionError(
                f"{cls.name}: unknown option(s) {', '.join(unknown)}; "
                f"known: {', '.join(sorted(known)) or 'none'}"
            )
        cls.config_class.check_types(cls.name, overrides)
        return cls(context, cls.config_class(**overrides))

    def on_question(self, record: QARecord) -> Self:
        """This reasoner, or, where each question has its own graph, one with the same config
        over that graph."""
        return self.with_context(self.context.for_question(record))

    def with_context(self, context: ReasonerContext) -> Self:
        """This reasoner, or one with the same config over `context`."""
        return self if context is self.context else type(self)(context, self.config)

    def run(
        self,
        question: str,
        topic_entities: Sequence[str] = (),
        listener: Callable[[str, Trace], None] | None = None,
        gold: Sequence[str] = (),
    ) -> Trace:
        """Answer `question`; `listener(stage, trace)` is called as each stage finishes. `gold`
        answers, when known, are recorded for the views (the method never sees them)."""
        trace = self._new_trace(question, listener)
        trace.gold, trace.topics = list(gold), list(topic_entities)
        with trace.stage("total"), self.context.kg.in_use():
            try:
                with trace.stage("retrieval"):
                    found = self.retrieve(trace, trace.question, tuple(topic_entities))
            except Abstained:
                trace.abstained = True
                return trace
            self.generate(trace, trace.question, found)
            record_citations(trace)
        return trace

    def retrieve_only(self, question: str, topic_entities: Sequence[str] = ()) -> Trace:
        """Only the retrieval stages (for retrieval benchmarks); the trace has no answer."""
        trace = self._new_trace(question, None)
        with trace.stage("total"), trace.stage("retrieval"), self.context.kg.in_use():
            try:
                self.retrieve(trace, trace.question, tuple(topic_entities))
            except Abstained:
                trace.abstained = True
        return trace

    def _new_trace(self, question: str, listener: Callable[[str, Trace], None] | None) -> Trace:
        return Trace(
            method=self.name,
            question=question.strip(),
            dataset=self.context.dataset.name,
            listener=listener,
        )

    def regenerate(
        self,
        source: Trace,
        evidence: Sequence[StringTriple],
        listener: Callable[[str, Trace], None] | None = None,
    ) -> Trace:
        """The generation stage again, on `evidence` (the source run's, edited), with the same
        prompt format and LLM: a new trace holding the source's retrieval records (updated to
        the evidence where the prompt is made from them) and the new answer."""
        trace = self._new_trace(source.question, listener)
        trace.gold, trace.topics = list(source.gold), list(source.topics)
        trace.stages, trace.checkpoint = dict(source.stages), source.checkpoint
        trace.card_sha256 = source.card_sha256 or str(source.setting.get("card_sha256", ""))
        trace.evidence = list(dict.fromkeys(evidence))
        with trace.stage("total"), self.context.kg.in_use():  # names are looked up, as in a run
            found = self.found_from(trace)
            self.generate(trace, trace.question, found)
            record_citations(trace)
        return trace

    def found_from(self, trace: Trace) -> FoundT:
        """What `generate` needs, rebuilt from a finished run's records and its evidence (which
        `regenerate` has edited); methods that can regenerate override this."""
        raise InputError(f"{self.name} has no evidence to regenerate an answer from")

    @property
    def checkpoint_name(self) -> str:
        """The folder of the checkpoint this run loads: the method's name, unless the method
        has more than one training of its learned part."""
        return self.name

    @property
    def train_command(self) -> str:
        """The command that trains that checkpoint."""
        return f"kgviz train {self.name}"

    @property
    def checkpoint_folder(self) -> Path:
        """The folder of the checkpoint this run loads (`checkpoint_name` under the chosen root)."""
        return checkpoint_dir(self.checkpoint_name, self.chosen_checkpoint)

    @cached_property
    def chosen_checkpoint(self) -> Path:
        """The root holding this method's checkpoint for the dataset in use
        (`checkpoint_store.find_checkpoint`), or the config's `checkpoint_root` if set."""
        root = getattr(self.config, "checkpoint_root", None)
        return find_checkpoint(
            self.checkpoint_name, self.context.dataset.name, Path(root) if root else None
        )

    def note_checkpoint(self, trace: Trace, card: dict[str, Any]) -> None:
        """Record the checkpoint that ran, its card's hash and the dataset the card says it was
        trained on; one trained on another dataset is a warning."""
        folder = self.checkpoint_folder
        trained = trained_on(card, folder)
        trace.checkpoint = f"{folder} (trained on {trained})"
        trace.card_sha256 = card_sha256(card)
        dataset = self.context.dataset.name
        if dataset_key(trained) != dataset_key(dataset):
            trace.warnings.append(
                borrowed_checkpoint_note(self.name, dataset, trained, self.train_command)
            )

    @staticmethod
    def listed_answers(reply: str, names: NameLookup) -> list[str]:
        """The last resort of answer extraction, once a re-ask committed to nothing either: the
        KG names the reply lists (`answers.listed_names`). `kgviz rescore` applies it too."""
        return listed_names(reply, names)

    @abstractmethod
    def retrieve(self, trace: Trace, question: str, topic_entities: tuple[str, ...]) -> FoundT:
        """Every stage before the answer; sets `trace.evidence`, returns what `generate` needs."""

    @abstractmethod
    def generate(self, trace: Trace, question: str, found: FoundT) -> None:
        """Prompt the LLM with what `retrieve` found; set `trace.answer` and `trace.answers`."""
