"""One question's retrieval: candidate subgraph in local ids, its DDE, and the scorer's logits."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.subgraphrag.candidates import Candidates, collect_candidates
from kgviz.reasoners.subgraphrag.config import SubgraphRAGRetrieval
from kgviz.reasoners.subgraphrag.dde import entity_dde, triple_dde
from kgviz.reasoners.subgraphrag.scorer import TripleScorer
from kgviz.reasoners.text_features import TextEmbeddings


@dataclass
class CandidateSubgraph:
    """The candidates of one question: `nodes` maps local node ids to KG ids; `triples` are
    `(m, 3)` rows `[local head, relation, local tail]` aligned with `candidates.edges`."""

    candidates: Candidates
    nodes: np.ndarray
    triples: torch.Tensor
    dde: torch.Tensor

    def __len__(self) -> int:
        return len(self.triples)


def build_subgraph(
    kg: KnowledgeGraph, topics: list[int], settings: SubgraphRAGRetrieval, rounds: int
) -> CandidateSubgraph:
    """Collect the candidates around `topics` and encode them with `rounds` DDE rounds."""
    candidates = collect_candidates(
        kg, topics, settings.hops, settings.max_candidates, settings.hub_degree
    )
    rows = kg.triples[candidates.edges].astype(np.int64)
    nodes, local = np.unique(
        np.concatenate([rows[:, [0, 2]].ravel(), topics]).astype(np.int64), return_inverse=True
    )
    ends = torch.from_numpy(local[: 2 * len(rows)].reshape(-1, 2))
    triples = torch.stack([ends[:, 0], torch.from_numpy(rows[:, 1]), ends[:, 1]], dim=1)
    topic_mask = torch.from_numpy(np.isin(nodes, topics))
    node_dde = entity_dde(len(nodes), triples[:, 0], triples[:, 2], topic_mask, rounds)
    return CandidateSubgraph(
        candidates, nodes, triples, triple_dde(node_dde, triples[:, 0], triples[:, 2])
    )


def score_subgraph(
    scorer: TripleScorer, text: TextEmbeddings, question: torch.Tensor, subgraph: CandidateSubgraph
) -> torch.Tensor:
    """One logit per candidate triple (the MLP over question, entity, relation vectors and DDE)."""
    nodes = text.entity_vectors(torch.from_numpy(subgraph.nodes))
    return scorer(question, nodes, text.relations, subgraph.triples, subgraph.dde)
