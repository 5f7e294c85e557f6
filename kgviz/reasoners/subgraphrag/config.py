"""SubgraphRAG's options (a light module: listing methods imports no model code)."""

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
class SubgraphRAGRetrieval:
    """Candidate triples within `hops` of the topic entities, at most `max_candidates`, not walking
    through entities of degree above `hub_degree`."""

    hops: int = 3
    max_candidates: int = 10_000
    hub_degree: int = 200


DEFAULTS = SubgraphRAGRetrieval()


@dataclass
class SubgraphRAGConfig(ListAnsweringConfig):
    """`top_k` triples (or "auto": sized to the reader, see `resolved_top_k`) to the LLM out of
    the candidates within `hops` of the topic entities (at most `max_candidates`, hubs above
    `hub_degree` not walked through); `checkpoint_root` is the folder holding `subgraphrag/`
    (default: the packaged checkpoints)."""

    top_k: int | Literal["auto"] = option(
        "auto",
        "triples given to the LLM; auto: 30 for readers of up to 3B parameters, else 100 (the "
        "paper's K)",
        range=(1, 1000),
    )
    hops: int = option(
        DEFAULTS.hops, "hops around the topic entities the candidate triples come from", range=HOPS
    )
    max_candidates: int = option(
        DEFAULTS.max_candidates,
        "most candidate triples scored (the paper scores the whole retrieved neighbourhood)",
        range=(1, 1_000_000),
    )
    hub_degree: int = option(
        DEFAULTS.hub_degree,
        "entities with more edges are not walked through (not in the paper; the scorer was "
        "trained with it)",
        range=(1, 100_000_000),
    )
    max_tokens: int = option(
        384, "most tokens in a free-text answer (answer_list off)", range=ANSWER_TOKENS
    )
    checkpoint_root: str | None = option(
        None, "folder holding subgraphrag/ (default: the dataset's or the packaged one)"
    )

    @property
    def retrieval(self) -> SubgraphRAGRetrieval:
        return SubgraphRAGRetrieval(self.hops, self.max_candidates, self.hub_degree)
