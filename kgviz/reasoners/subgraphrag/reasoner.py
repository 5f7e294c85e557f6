"""SubgraphRAG as a Reasoner: topic entities -> candidate triples -> DDE + MLP scores -> top-K
triples -> one LLM call for an explained answer.

Stages recorded: `linking` (EntityLinking), `candidates` (SubgraphRAGCandidates), `scoring`
(TripleScores: every candidate with its score, rank and whether kept) and `generation`
(SubgraphRAGGeneration). The scorer loads lazily from `kgviz/checkpoints/subgraphrag/`.
"""

from __future__ import annotations

from collections import Counter
from functools import cached_property
from typing import Any, Literal

import torch

from kgviz.kg.graph import KnowledgeGraph
from kgviz.llm.model_size import parameter_billions
from kgviz.reasoners.answers import NameLookup, evidence_entities, listed_names
from kgviz.reasoners.base import Reasoner
from kgviz.reasoners.grounding import link_and_ground
from kgviz.reasoners.linking import LINKING, EntityLinking, entity_names
from kgviz.reasoners.prompting import generate_answer, generate_listed_answer
from kgviz.reasoners.subgraphrag.config import SubgraphRAGConfig
from kgviz.reasoners.subgraphrag.prompt import (
    ans_reask,
    committed_answers,
    reasoning_messages,
    split_reply,
)
from kgviz.reasoners.subgraphrag.records import (
    CANDIDATES,
    GENERATION,
    SCORING,
    SubgraphRAGCandidates,
    SubgraphRAGGeneration,
    SubgraphRAGTriple,
    TripleScores,
)
from kgviz.reasoners.subgraphrag.retrieval import (
    CandidateSubgraph,
    build_subgraph,
    score_subgraph,
)
from kgviz.reasoners.subgraphrag.samples import ranking
from kgviz.reasoners.subgraphrag.scorer import TripleScorer, load_scorer
from kgviz.reasoners.text_features import context_text_embeddings
from kgviz.trace import Trace

# `top_k="auto"`: the paper ties K to the reader's ability. Readers of up to 3B parameters get 30
# triples (with the 1.5B offline model, top 30 matched top 100 in hits at 2.3x less cost), larger
# readers, and models whose size the name does not state, 100.
SMALL_READER_B, SMALL_READER_K, LARGE_READER_K = 3.0, 30, 100


def resolved_top_k(top_k: int | Literal["auto"], model: str) -> int:
    """`top_k` itself, or for "auto" the K that suits the reader `model` ("" when retrieval runs
    without an LLM, which gets the large reader's K)."""
    if top_k != "auto":
        return top_k
    size = parameter_billions(model)
    return SMALL_READER_K if size is not None and size <= SMALL_READER_B else LARGE_READER_K


def candidate_record(kg: KnowledgeGraph, subgraph: CandidateSubgraph) -> SubgraphRAGCandidates:
    found = subgraph.candidates
    names = kg.entities
    return SubgraphRAGCandidates(
        triples=len(subgraph),
        entities=len(subgraph.nodes),
        per_hop=dict(sorted(Counter(found.hops.tolist()).items())),
        full_layers=found.full_layers,
        hubs=[(names[e], d) for e, d in found.hubs],
        unexpanded=[(names[e], d) for e, d in found.unexpanded],
        cut=found.cut,
    )


class SubgraphRAG(Reasoner[EntityLinking]):
    """Parallel triple scoring around the topic entities; the top K go to the LLM."""

    name = "subgraphrag"
    config_class = SubgraphRAGConfig
    config: SubgraphRAGConfig

    @cached_property
    def checkpoint(self) -> tuple[TripleScorer, dict[str, Any]]:
        """The trained scorer and its card; a missing checkpoint names `kgviz train subgraphrag`."""
        return load_scorer(self.chosen_checkpoint)

    def retrieve(
        self, trace: Trace, question: str, topic_entities: tuple[str, ...]
    ) -> EntityLinking:
        kg, config = self.context.kg, self.config
        top_k = resolved_top_k(config.top_k, self.context.llm_model)
        scorer, card = self.checkpoint
        self.note_checkpoint(trace, card)
        with trace.stage(LINKING):
            linking = link_and_ground(
                trace, self.context, question, topic_entities, self.config.on_ungrounded
            )
        with trace.stage(CANDIDATES):
            subgraph = build_subgraph(kg, linking.ids, config.retrieval, scorer.shape.rounds)
            trace.record(CANDIDATES, candidate_record(kg, subgraph))
        with trace.stage(SCORING):
            text = context_text_embeddings(self.context)
            question_vector = text.questions([linking.question])[0]
            with torch.no_grad():
                logits = score_subgraph(scorer, text, question_vector, subgraph)
            order = ranking(logits).tolist()
            probabilities = torch.sigmoid(logits).tolist()
            edges, hops = subgraph.candidates.edges.tolist(), subgraph.candidates.hops.tolist()
            triples = [kg.triple_names(edges[i]) for i in order]
            trace.record(
                SCORING,
                TripleScores(
                    [
                        SubgraphRAGTriple(
                            *triple, hops[i], round(probabilities[i], 5), rank, rank < top_k
                        )
                        for rank, (i, triple) in enumerate(zip(order, triples))
                    ],
                    top_k,
                    card.get("command", ""),
                ),
            )
            trace.evidence = triples[:top_k]
        if subgraph.candidates.cut:
            trace.warnings.append(
                f"subgraphrag: {subgraph.candidates.cut} candidate triples left "
                f"out (max_candidates {config.max_candidates})"
            )
        return linking

    @staticmethod
    def listed_answers(reply: str, names: NameLookup) -> list[str]:
        """The KG names the reply's `ans:` lines list (prose commits to nothing)."""
        return listed_names("\n".join(split_reply(reply)[1]), names)

    def found_from(self, trace: Trace) -> EntityLinking:
        """The linking record: the prompt is made from it and the evidence."""
        return trace.stages[LINKING]

    def generate(self, trace: Trace, question: str, found: EntityLinking) -> None:
        """One LLM call (and one re-ask when it commits to nothing): with `answer_list`, a JSON
        list of evidence entities (topic entities aside); otherwise the evidence entities that
        its `ans:` lines name."""
        if self.config.lists_answers(self.context.llm):
            messages = reasoning_messages(found.question, trace.evidence, listed=True)
            choices = set(evidence_entities(trace.evidence)) - set(found.names)
            listed = generate_listed_answer(
                trace, self.context.llm, messages, choices, self.config.answer_reask
            )
            trace.record(GENERATION, SubgraphRAGGeneration("", listed, list(trace.answers)))
            return
        messages = reasoning_messages(found.question, trace.evidence)
        reply = generate_answer(
            trace,
            self.context.llm,
            messages,
            self.config.max_tokens,
            lambda text: committed_answers(text, trace.evidence, found.names),
            lambda text: ans_reask(found.question, text, trace.evidence, found.names),
            lambda text: self.listed_answers(text, entity_names(self.context)),
            reask_shows_reply=False,
            answer_reask=self.config.answer_reask,
        )
        explanation, lines = split_reply(reply)
        if not trace.answers:
            trace.warnings.append("subgraphrag: the reply commits to no answer in an `ans:` line")
        trace.record(GENERATION, SubgraphRAGGeneration(explanation, lines, list(trace.answers)))
