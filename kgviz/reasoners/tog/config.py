"""ToG's options (a light module: listing methods imports no model code)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from kgviz.reasoners.base import ANSWER_TOKENS, SEEDS, ListAnsweringConfig, option

Pruner = Literal["llm", "embedding"]
Beam = Literal["entity", "relation"]


@dataclass
class ToGConfig(ListAnsweringConfig):
    """The beam (`width` paths, `depth` steps), how relations and entities are pruned, and the
    exploration's sampling."""

    width: int = option(
        3, "paths the beam keeps at each depth, and relations kept per entity: N", range=(1, 20)
    )
    depth: int = option(3, "most steps the walk takes from the topic entities: D", range=(1, 6))
    keep_entities: int = option(
        5, "neighbours kept of a relation with many (a random sample)", range=(1, 100)
    )
    sample_above: int = option(
        20,
        "a relation with at least this many neighbours is sampled to keep_entities",
        range=(1, 100_000),
    )
    pruner: Pruner = option(
        "embedding",
        "how relations and candidate entities are scored: llm (a prompt each, the paper's "
        "default) or embedding (similarity to the question by kgviz's encoder, no LLM call; "
        "the authors' sentencebert option)",
    )
    beam: Beam = option(
        "entity",
        "entity: the beam holds paths to entities, each scored (ToG); relation: it holds "
        "relation chains and their end entities are sampled, not scored (ToG-R)",
    )
    paths_as: Literal["chains", "triples"] = option(
        "chains",
        "how the LLM reads the paths: chains from the topic entity (A → relation → B ← relation "
        "← C; kgviz's) or the paper's list of triples",
    )
    exploration_temperature: float = option(
        0.0, "sampling temperature of the pruning calls (paper: 0.4)", range=(0.0, 2.0)
    )
    seed: int = option(0, "seed of the neighbour samples and sampled replies", range=SEEDS)
    max_tokens: int = option(
        256, "most tokens in a free-text reply (the paper's prompts)", range=ANSWER_TOKENS
    )
