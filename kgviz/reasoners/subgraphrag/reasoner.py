"""SubgraphRAG as a Reasoner: topic entities -> candidate triples -> DDE + MLP scores -> top-K
triples -> one LLM call for an explained answer.

Stages recorded: `linking` (EntityLinking), `candidates` (CandidateRecord), `scoring`
(TripleScores: every candidate with its score, rank and whether kept) and `generation`
(Generation). The scorer loads lazily from `kgviz/checkpoints/subgraphrag/`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import torch

from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.answers import mentioned_entities
from kgviz.reasoners.base import Reasoner, ReasonerConfig
from kgviz.reasoners.linking import EntityLinking, link_topic_entities
from kgviz.reasoners.llm_calls import ask_text
from kgviz.reasoners.subgraphrag.prompt import reasoning_messages, split_reply
from kgviz.reasoners.subgraphrag.records import (
    CandidateRecord,
    Generation,
    ScoredTriple,
    TripleScores,
)
from kgviz.reasoners.subgraphrag.retrieval import (
    RetrievalSettings,
    Subgraph,
    build_subgraph,
    score_subgraph,
)
from kgviz.reasoners.subgraphrag.samples import ranking
from kgviz.reasoners.subgraphrag.scorer import TripleScorer, load_scorer
from kgviz.reasoners.text_features import context_text_embeddings
from kgviz.trace import Trace

DEFAULTS = RetrievalSettings()


@dataclass
class SubgraphRAGConfig(ReasonerConfig):
    """`top_k` triples to the LLM out of the candidates within `hops` of the topic entities (at
    most `max_candidates`, hubs above `hub_degree` not walked through); `checkpoint_root` is the
    folder holding `subgraphrag/` (default: the packaged checkpoints)."""

    top_k: int = 100
    hops: int = DEFAULTS.hops
    max_candidates: int = DEFAULTS.max_candidates
    hub_degree: int = DEFAULTS.hub_degree
    max_tokens: int = 384
    checkpoint_root: str | None = None

    def __post_init__(self) -> None:
        self.require_positive("subgraphrag", "top_k", "hops", "max_candidates", "hub_degree",
                              "max_tokens")

    @property
    def retrieval(self) -> RetrievalSettings:
        return RetrievalSettings(self.hops, self.max_candidates, self.hub_degree)


def candidate_record(kg: KnowledgeGraph, subgraph: Subgraph) -> CandidateRecord:
    found = subgraph.candidates
    names = kg.entities
    return CandidateRecord(
        triples=len(subgraph), entities=len(subgraph.nodes),
        per_hop=dict(sorted(Counter(found.hops.tolist()).items())), full_layers=found.full_layers,
        hubs=[(names[e], d) for e, d in found.hubs],
        unexpanded=[(names[e], d) for e, d in found.unexpanded], cut=found.cut)


class SubgraphRAG(Reasoner):
    """Parallel triple scoring around the topic entities; the top K go to the LLM."""

    name = "subgraphrag"
    config_class = SubgraphRAGConfig
    config: SubgraphRAGConfig

    @cached_property
    def checkpoint(self) -> tuple[TripleScorer, dict[str, Any]]:
        """The trained scorer and its card; a missing checkpoint names `kgviz train subgraphrag`."""
        root = self.config.checkpoint_root
        return load_scorer(Path(root) if root else None)

    def retrieve(self, trace: Trace, question: str, topic_entities: tuple[str, ...]) -> EntityLinking:
        kg, config = self.context.kg, self.config
        scorer, card = self.checkpoint
        with trace.stage("linking"):
            linking = link_topic_entities(trace, self.context, question, topic_entities)
        with trace.stage("candidates"):
            subgraph = build_subgraph(kg, linking.ids, config.retrieval, scorer.shape.rounds)
            trace.record("candidates", candidate_record(kg, subgraph))
        with trace.stage("scoring"):
            text = context_text_embeddings(self.context)
            question_vector = text.questions([linking.question])[0]
            with torch.no_grad():
                logits = score_subgraph(scorer, text, question_vector, subgraph)
            order = ranking(logits).tolist()
            probabilities = torch.sigmoid(logits).tolist()
            edges, hops = subgraph.candidates.edges.tolist(), subgraph.candidates.hops.tolist()
            triples = [kg.triple_names(edges[i]) for i in order]
            trace.record("scoring", TripleScores(
                [ScoredTriple(*triple, hops[i], round(probabilities[i], 5), rank, rank < config.top_k)
                 for rank, (i, triple) in enumerate(zip(order, triples))],
                config.top_k, card.get("command", "")))
            trace.evidence = triples[:config.top_k]
        if subgraph.candidates.cut:
            trace.warnings.append(f"subgraphrag: {subgraph.candidates.cut} candidate triples left "
                                  f"out (max_candidates {config.max_candidates})")
        return linking

    def generate(self, trace: Trace, question: str, found: EntityLinking) -> None:
        """One LLM call; the answers are the evidence entities (topic entities aside) that its
        `ans:` lines name."""
        question, topics = found.question, found.names
        with trace.stage("generation"):
            messages = reasoning_messages(question, trace.evidence)
            reply = ask_text(trace, "generation", self.context.llm, messages,
                             max_tokens=self.config.max_tokens)
        explanation, lines = split_reply(reply)
        if not lines:
            trace.warnings.append("subgraphrag: the reply has no `ans:` line")
        named = "\n".join(lines)
        evidence_names = {name for h, _, t in trace.evidence for name in (h, t)} - set(topics)
        trace.answers = mentioned_entities(named, evidence_names)
        trace.answer = f"{', '.join(lines) or 'No answer found'}. {explanation}".strip()
        trace.record("generation", Generation(explanation, lines, list(trace.answers)))
