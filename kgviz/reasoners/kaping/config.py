"""Kaping's options (a light module: listing methods imports no model code)."""

from __future__ import annotations

from dataclasses import dataclass

from kgviz.reasoners.base import (
    ANSWER_TOKENS,
    HOPS,
    SEEDS,
    GroundedConfig,
    option,
)


@dataclass
class KapingConfig(GroundedConfig):
    """`top_k` triples kept out of at most `max_candidates` within `hops` of the topic entities."""

    hops: int = option(
        1, "hops around the topic entities the candidate triples come from", range=HOPS
    )
    top_k: int = option(
        10, "triples given to the LLM, most similar to the question first", range=(1, 1000)
    )
    max_candidates: int = option(
        1000, "most candidate triples scored (nearer hops kept first)", range=(1, 1_000_000)
    )
    max_tokens: int = option(128, "most tokens in the answer", range=ANSWER_TOKENS)
    seed: int = option(0, "which candidates a capped neighbourhood keeps", range=SEEDS)
