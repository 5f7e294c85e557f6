"""A session: one dataset, one LLM and the reasoners built over them (what the CLI and app
share).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kgviz.datasets import Dataset, get_dataset
from kgviz.datasets.base import QARecord
from kgviz.embed.index import IndexKind
from kgviz.errors import KgvizError
from kgviz.reasoners.base import Reasoner, ReasonerContext
from kgviz.reasoners.registry import make_reasoner

if TYPE_CHECKING:
    from kgviz.llm.cache import CacheMode


@dataclass
class Session:
    dataset: Dataset
    context: ReasonerContext
    llm_reason: str
    reasoners: dict[str, Reasoner] = field(default_factory=dict)

    def warm_up(self, retrieves: bool = True) -> None:
        """Load what the first question would otherwise load inside its own time: the vector
        index and the sentence encoder (when a method retrieves) and the LLM."""
        if retrieves and self.dataset.per_question_graphs:  # indexes come with each question
            from kgviz.embed.encoder import get_encoder

            get_encoder().encode(["warm-up"])
        elif retrieves:
            self.context.index.embed(["warm-up"])  # loads the encoder and the embedding cache
        self.context.llm.warm_up()

    def reasoner(self, method: str, **config: Any) -> Reasoner:
        """The reasoner for `method`; a configured one is built fresh, a default one is reused."""
        if config:
            return make_reasoner(method, self.context, **config)
        if method not in self.reasoners:
            self.reasoners[method] = make_reasoner(method, self.context)
        return self.reasoners[method]

    def question_reasoner(self, method: str, record: QARecord | None, **config: Any) -> Reasoner:
        """The reasoner for `method` on one question: over the question's own graph where the
        dataset gives each question one (then the question must be one of the dataset's)."""
        reasoner = self.reasoner(method, **config)
        if record is not None:
            return reasoner.on_question(record)
        if self.dataset.per_question_graphs:
            raise KgvizError(
                f"{self.dataset.name} gives each question its own graph: ask one of its "
                "questions (pick an example, or give its text or id)"
            )
        return reasoner

    def find_question(self, text: str) -> QARecord | None:
        """The dataset question with this text or id (case-insensitive), if any."""
        wanted = text.strip().casefold()
        for split in self.dataset.available_splits():
            for record in self.dataset.questions(split):
                qid = record.qid.casefold()
                if wanted in (record.question.casefold(), qid, qid.rpartition("/")[2]):
                    return record
        return None


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
