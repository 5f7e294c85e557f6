"""Retrieval augmentation: another method's evidence, borrowed without its answer call."""

from __future__ import annotations

from collections.abc import Sequence

from kgviz.errors import OptionError
from kgviz.reasoners.base import Reasoner, ReasonerContext
from kgviz.reasoners.registry import make_reasoner, reasoner_class
from kgviz.trace import LLMCall, StringTriple


def augmenting_reasoner(context: ReasonerContext, method: str) -> Reasoner:
    """The method (with its default settings) whose evidence augments GNN-RAG's paths."""
    if method == "gnnrag":
        raise OptionError("gnnrag: augment_with must name another method")
    if not reasoner_class(method).retrieves:
        raise OptionError(f"gnnrag: {method} retrieves nothing to augment with; name a retriever")
    return make_reasoner(method, context)


def borrowed_retrieval(
    reasoner: Reasoner, question: str, topic_entities: Sequence[str]
) -> tuple[list[StringTriple], list[LLMCall]]:
    """The evidence triples `reasoner` retrieves for `question` and the LLM calls its retrieval
    made (SimGRAG's pattern; its answer is not asked for)."""
    trace = reasoner.retrieve_only(question, topic_entities)
    return list(trace.evidence), trace.llm_calls
