"""KAPING (Baek et al., 2023): the triples around the topic entities most similar to the question,
verbalised and prepended to the prompt; no training."""

from __future__ import annotations

import numpy as np

from kgviz.embed.kg_index import relation_text
from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.answers import WithEvidenceNames, listed_names
from kgviz.reasoners.base import Reasoner
from kgviz.reasoners.grounding import link_and_ground
from kgviz.reasoners.kaping.config import KapingConfig
from kgviz.reasoners.kaping.records import TRIPLES, KapingTriple, TripleRanking
from kgviz.reasoners.linking import LINKING, EntityLinking, entity_names
from kgviz.reasoners.prompting import answer_messages, generate_answer
from kgviz.trace import Trace


def verbalise(triple: tuple[str, str, str]) -> str:
    head, relation, tail = triple
    return f"({head}, {relation_text(relation)}, {tail})"


def candidate_edges(
    kg: KnowledgeGraph, seeds: list[int], hops: int, cap: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, int]:
    """Triple rows within `hops` of `seeds` and their hop; beyond `cap`, nearer hops are kept
    first and a seeded sample of the last hop fills the rest. Also returns how many were dropped."""
    kg = kg.reach(seeds, hops)
    _, edges = kg.k_hop_subgraph(seeds, hops)
    edges = kg.rows_by_name(edges)  # the sample is the same however the KG numbers its triples
    dist = kg.distances_from(seeds, hops)
    hop = dist[kg.triples[edges][:, [0, 2]]].min(axis=1) + 1
    order = np.lexsort((rng.permutation(len(edges)), hop))[:cap]
    return edges[order], hop[order], len(edges) - len(order)


class Kaping(Reasoner[EntityLinking]):
    """Top-k triples by embedding similarity to the question, as facts before the question."""

    name = "kaping"
    config_class = KapingConfig
    config: KapingConfig

    def retrieve(
        self, trace: Trace, question: str, topic_entities: tuple[str, ...]
    ) -> EntityLinking:
        kg, config = self.context.kg, self.config
        linking = link_and_ground(
            trace, self.context, question, topic_entities, self.config.on_ungrounded
        )
        rng = np.random.default_rng(config.seed)
        edges, hops, dropped = candidate_edges(
            kg, linking.ids, config.hops, config.max_candidates, rng
        )
        triples = [kg.triple_names(edge) for edge in edges.tolist()]
        scores = self.context.index.similarities(linking.question, [verbalise(t) for t in triples])
        ranked = np.argsort(-scores, kind="stable")
        kept = set(ranked[: config.top_k].tolist())
        trace.record(
            TRIPLES,
            TripleRanking(
                [
                    KapingTriple(
                        triples[i][0],
                        triples[i][1],
                        triples[i][2],
                        int(hops[i]),
                        round(float(scores[i]), 4),
                        i in kept,
                    )
                    for i in ranked.tolist()
                ],
                config.top_k,
                dropped,
            ),
        )
        trace.evidence = [triples[i] for i in ranked[: config.top_k].tolist()]
        if dropped:
            trace.warnings.append(f"kaping: {dropped} candidate triples left out (max_candidates)")
        return linking

    def found_from(self, trace: Trace) -> EntityLinking:
        """The linking record: the prompt is made from it and the evidence."""
        return trace.stages[LINKING]

    def generate(self, trace: Trace, question: str, found: EntityLinking) -> None:
        messages = answer_messages(found.question, [verbalise(t) for t in trace.evidence])
        names = WithEvidenceNames(entity_names(self.context), trace.evidence)
        topics = set(found.names)
        generate_answer(
            trace,
            self.context.llm,
            messages,
            self.config.max_tokens,
            lambda reply: [n for n in listed_names(reply, names) if n not in topics],
            fallback=lambda reply: self.listed_answers(reply, names),
            answer_reask=self.config.answer_reask,
        )
