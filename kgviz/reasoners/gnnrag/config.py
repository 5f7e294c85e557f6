"""GNNRAG's options (a light module: listing methods imports no model code)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from kgviz.reasoners.base import (
    ANSWER_TOKENS,
    HOPS,
    ListAnsweringConfig,
    option,
)


@dataclass(frozen=True)
class GNNRAGRetrieval:
    """Subgraph (`hops`, `max_nodes`, PageRank restart `alpha`), candidates (the most probable
    nodes until their answer probability sums to `mass`, at most `max_candidates`) and the path
    caps."""

    hops: int = 3
    max_nodes: int = 1000
    alpha: float = 0.15
    mass: float = 0.95
    max_candidates: int = 10
    paths_per_candidate: int = 2
    max_paths: int = 30


DEFAULTS = GNNRAGRetrieval()
GNNChoice = Literal["tuned", "paper"]


@dataclass
class GNNRAGConfig(ListAnsweringConfig):
    """Candidates: the most probable nodes until their answer probability sums to `mass` (the
    paper's 0.95), at most `max_candidates`; subgraph: `hops` around the topic entities cut to
    `max_nodes` by PageRank; paths: `paths_per_candidate`, at most `max_paths`; `reach_prior`
    adds the GNN's reachability term to the answer score (kgviz's); `reader` False answers
    with the GNN's candidates alone (the GNN-only row, no LLM call); `augment_with` names a
    method whose first `augment_triples` evidence triples are added as paths (GNN-RAG+RA;
    `simgrag`, whose retrieval is LLM-guided, is the closest to the paper's LLM-based
    augmenter); `gnn` picks the GNN's training, whose folder `checkpoint_root` holds (`gnnrag/`
    or `gnnrag-paper/`; default: the dataset's or the packaged one)."""

    mass: float = option(
        DEFAULTS.mass,
        "candidates: the most probable nodes until their probability sums to this (paper: 0.95)",
        range=(0.01, 1.0),
    )
    max_candidates: int = option(
        DEFAULTS.max_candidates,
        "most answer candidates (the paper caps them by probability mass alone)",
        range=(1, 1000),
    )
    hops: int = option(DEFAULTS.hops, "hops of the subgraph around the topic entities", range=HOPS)
    max_nodes: int = option(
        DEFAULTS.max_nodes,
        "subgraph nodes kept by personalised PageRank (paper: 2,000 by PageRank-Nibble)",
        range=(1, 1_000_000),
    )
    paths_per_candidate: int = option(
        DEFAULTS.paths_per_candidate,
        "shortest paths kept per candidate (the paper keeps every shortest path)",
        range=(1, 100),
    )
    max_paths: int = option(
        DEFAULTS.max_paths,
        "most reasoning paths given to the LLM (the paper caps them only by the context)",
        range=(1, 1000),
    )
    reader: bool = option(
        True,
        "let the LLM read the paths and answer; off: the GNN's candidates, most probable first, "
        "are the answer with no LLM call (the GNN-only row that measures the LLM's share)",
    )
    gnn: GNNChoice = option(
        "tuned",
        "which training of kgviz's GNN: tuned (checkpoint gnnrag: entity-name vectors seed its "
        "nodes, the reachability prior is in its score, 1,000-node subgraphs) or paper "
        "(checkpoint gnnrag-paper: trained without either addition on 2,000-node subgraphs, "
        "as in the paper)",
    )
    reach_prior: bool = option(
        True,
        "add the GNN's reachability prior (how strongly the question's gated relations reach a "
        "node from the topic entities) to its answer score (not in the paper; a GNN trained "
        "without it, gnn=paper, needs it off; off for the tuned GNN is an ablation without "
        "retraining)",
    )
    rank_answers: bool = option(
        True,
        "with answer_list: the answers the reader lists are ordered by the GNN's answer "
        "probability, the reader's order breaking ties (kgviz's)",
    )
    augment_with: str | None = option(
        None,
        "a method whose evidence is added (GNN-RAG+RA; simgrag is LLM-guided, the paper uses "
        "RoG); its pattern call is counted with the run's",
    )
    augment_triples: int = option(15, "most triples borrowed from augment_with", range=(1, 1000))
    max_tokens: int = option(
        128, "most tokens in a free-text answer (answer_list off)", range=ANSWER_TOKENS
    )
    checkpoint_root: str | None = option(
        None,
        "folder holding gnnrag/ (gnnrag-paper/ for gnn=paper; default: the dataset's or the "
        "packaged one)",
    )

    @property
    def retrieval(self) -> GNNRAGRetrieval:
        return GNNRAGRetrieval(
            self.hops,
            self.max_nodes,
            DEFAULTS.alpha,
            self.mass,
            self.max_candidates,
            self.paths_per_candidate,
            self.max_paths,
        )
