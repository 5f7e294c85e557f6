"""Traces: what a reasoner did for one question, stage by stage, for views, the CLI and
evaluation.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgviz.errors import RunStoreError

if TYPE_CHECKING:
    from kgviz.llm.base import Completion

StringTriple = tuple[str, str, str]
# The stage name of the one re-ask a reply without a parsable answer gets.
REASK_STAGE = "reask"
EDIT = "edit"  # the stage of a regenerated run that records its evidence edit
CITATIONS = "citations"  # the stage of what a finished run's answers rest on
LINKING = "linking"  # the stage that links topic entities (`EntityLinking`)
GROUNDING = "grounding"  # the stage that checks the question's names against the KG


@dataclass
class LLMCall:
    """One call to the language model, as a stage made it."""

    stage: str
    messages: list[dict[str, str]]
    text: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    backend: str
    model: str
    truncated: bool = False  # the reply stopped at its token limit
    cached: bool = False
    looped: bool = False  # the loop guard cut a repeating tail
    reused_tokens: int = 0  # prompt tokens the server took from its prompt cache
    soft_tokens: int = 0  # soft-prompt vectors (graph tokens) read before the text
    # why this request gave its stage no reply: a transient failure that was retried, or a
    # reply that was not the JSON asked for and was asked again ('' for a reply that was used)
    problem: str = ""

    @classmethod
    def from_completion(
        cls, stage: str, messages: list[dict[str, str]], completion: Completion
    ) -> LLMCall:
        """The record of `completion`, made by `stage` from `messages`."""
        kept = {
            f.name: getattr(completion, f.name) for f in fields(cls) if hasattr(completion, f.name)
        }
        return cls(**{**kept, "stage": stage, "messages": [dict(m) for m in messages]})


@dataclass
class Trace:
    """Everything one run recorded. `stages` maps a stage name to its typed record, in run order."""

    method: str
    question: str
    dataset: str = ""
    stages: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    llm_calls: list[LLMCall] = field(default_factory=list)
    evidence: list[StringTriple] = field(default_factory=list)
    answer: str = ""
    answers: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    checkpoint: str = ""  # the learned part's checkpoint, for methods that have one
    card_sha256: str = ""  # the sha256 of that checkpoint's card
    setting: dict[str, Any] = field(default_factory=dict)  # `RunSetting.as_json()` of the run
    gold: list[str] = field(default_factory=list)  # the question's gold answers, when known
    topics: list[str] = field(default_factory=list)  # the topic entities the run was given
    abstained: bool = False  # the question was not grounded and the method declined to answer
    listener: Callable[[str, Trace], None] | None = field(default=None, repr=False, compare=False)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time a stage; its seconds add up under `timings[name]` and listeners hear of its end."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.timings[name] = self.timings.get(name, 0.0) + time.perf_counter() - start
        if self.listener is not None:
            self.listener(name, self)

    def record(self, name: str, value: Any) -> None:
        self.stages[name] = value

    def cited(self) -> list[StringTriple]:
        """The evidence triples its committed answers rest on (its `citations` record's; none
        for a run without one)."""
        cited = getattr(self.stages.get(CITATIONS), "cited", None)  # a `Citations` record's
        return list(cited()) if cited is not None else []

    @property
    def prompt_tokens(self) -> int:
        return sum(call.prompt_tokens for call in self.llm_calls)

    @property
    def completion_tokens(self) -> int:
        return sum(call.completion_tokens for call in self.llm_calls)

    @property
    def truncated(self) -> bool:
        """Whether the reply that gave the answer (the last LLM call) ran to its token limit."""
        return bool(self.llm_calls) and self.llm_calls[-1].truncated

    @property
    def reasked(self) -> bool:
        """Whether the answer needed the re-ask that restates the answer format."""
        return any(call.stage == REASK_STAGE for call in self.llm_calls)

    @property
    def llm_seconds(self) -> float:
        """The LLM calls' own latency; a reply replayed from the cache keeps its first cost."""
        return sum((call.latency_s for call in self.llm_calls), 0.0)

    @property
    def replayed_seconds(self) -> float:
        """What the replies replayed from the cache cost when they were first computed."""
        return sum((call.latency_s for call in self.llm_calls if call.cached), 0.0)

    @property
    def cost_seconds(self) -> float:
        """The run's total time, each reply replayed from the cache counted at its first cost."""
        return self.timings.get("total", 0.0) + self.replayed_seconds

    def to_json(self) -> dict[str, Any]:
        """The contract JSON of `kgviz ask --json` (plus token counts, warnings, the stages
        recorded and a line per LLM request; `save` writes the records themselves)."""
        return {
            "method": self.method,
            "question": self.question,
            "dataset": self.dataset,
            "answer": self.answer,
            "answers": list(self.answers),
            "evidence": [list(t) for t in self.evidence],
            "cited": [list(t) for t in self.cited()],
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
            "tokens": {"prompt": self.prompt_tokens, "completion": self.completion_tokens},
            "llm": sorted({f"{c.backend}:{c.model}" for c in self.llm_calls}),
            "truncated": self.truncated,
            "reasked": self.reasked,
            "abstained": self.abstained,
            "warnings": list(self.warnings),
            "setting": dict(self.setting),
            "stages": list(self.stages),
            "llm_calls": [
                {
                    "stage": call.stage,
                    "llm": f"{call.backend}:{call.model}",
                    "prompt_tokens": call.prompt_tokens,
                    "soft_tokens": call.soft_tokens,
                    "completion_tokens": call.completion_tokens,
                    "seconds": round(call.latency_s, 3),
                    "cached": call.cached,
                    "problem": call.problem,
                }
                for call in self.llm_calls
            ],
        }

    def save(self, path: str | Path) -> None:
        """Write this trace as versioned JSON (`kgviz.trace.io`); `Trace.load` reads it back."""
        from kgviz.trace.io import write_trace

        write_trace(self.saved(), path)

    def saved(self) -> dict[str, Any]:
        """This trace as the versioned JSON data `save` writes (for downloads and files)."""
        from kgviz.trace.io import saved_trace

        plain = {
            "method": self.method,
            "question": self.question,
            "dataset": self.dataset,
            "timings": dict(self.timings),
            "evidence": [list(triple) for triple in self.evidence],
            "answer": self.answer,
            "answers": list(self.answers),
            "warnings": list(self.warnings),
            "gold": list(self.gold),
            "topics": list(self.topics),
            "abstained": self.abstained,
            "setting": dict(self.setting),
        }
        return saved_trace(plain, self.stages, self.llm_calls)

    @staticmethod
    def load(path: str | Path) -> Trace:
        """A trace that `Trace.save` wrote, with every stage record rebuilt; a clear error for
        any other file."""
        from kgviz.trace.io import read_saved, read_trace

        return Trace.from_saved(*read_saved(read_trace(path), str(path)), where=str(path))

    @staticmethod
    def from_saved(
        plain: dict[str, Any], stages: dict[str, Any], calls: list[Any], where: str = "trace"
    ) -> Trace:
        """A trace from the decoded parts `trace_io.read_saved` gives; a clear error for parts
        that are not a trace's."""
        from kgviz.trace.io import unreadable

        if not all(isinstance(call, LLMCall) for call in calls):
            raise RunStoreError(f"{where}: llm_calls must hold LLM call records")
        try:
            return Trace(
                method=str(plain["method"]),
                question=str(plain["question"]),
                dataset=str(plain.get("dataset", "")),
                stages=stages,
                timings={str(k): float(v) for k, v in plain["timings"].items()},
                llm_calls=calls,
                evidence=[(str(h), str(r), str(t)) for h, r, t in plain["evidence"]],
                answer=str(plain["answer"]),
                answers=[str(a) for a in plain["answers"]],
                warnings=[str(w) for w in plain["warnings"]],
                gold=[str(g) for g in plain.get("gold", [])],
                topics=[str(t) for t in plain.get("topics", [])],
                abstained=bool(plain.get("abstained", False)),
                setting=dict(plain.get("setting", {})),  # {} in traces saved before settings
            )
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise unreadable(where, error) from error
