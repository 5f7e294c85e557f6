"""GRAG's options (a light module: listing methods imports no model code)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from kgviz.reasoners.base import (
    ANSWER_TOKENS,
    HOPS,
    ListAnsweringConfig,
    option,
)
from kgviz.reasoners.grag.describe import Style

TOKEN_CHECKPOINT = "grag-token"  # the graph-token encoder's checkpoint


@dataclass
class GRAGConfig(ListAnsweringConfig):
    """Ego-graphs of `hops` hops (hubs expanded through their `max_degree` half-edges most
    relevant to the question); the `top_n` most similar to the question (the paper uses 10; 5
    keeps more evidence recall within the budget, see the GRAG README) among
    those centred within `scope_hops` of the topic entities (None: the whole KG); their triples
    kept best gate score first while the description fits `description_tokens`. `task`: "qa",
    "stance" (ExplaGraphs: support or counter over the question's own graph), or "auto" (stance
    on commonsense datasets, else qa)."""

    hops: int = option(2, "hops of each ego-graph", range=HOPS)
    max_degree: int = option(
        50,
        "hubs expand through this many half-edges, most relevant to the question first",
        range=(1, 100_000),
    )
    top_n: int = option(
        5,
        "ego-graphs retrieved, most similar to the question first (paper: 10)",
        range=(1, 100),
    )
    scope_hops: int | None = option(
        1,
        "ego-graph centres within this many hops of the topic entities (None: all)",
        range=(0, HOPS[1]),
    )
    description_tokens: int = option(
        500,
        "token budget of the kept triples, best gate score first, counted as the triples "
        "style writes them (the compact style takes about half)",
        range=(1, 32_768),
    )
    description: Style = option(
        "compact",
        "how the pruned ego-graphs are written: compact (a line gives the relation and the "
        "entity it leads to, about half the tokens; kgviz's) or triples (each fact whole)",
    )
    task: Literal["auto", "qa", "stance"] = option(
        "auto", "qa, stance (support or counter, ExplaGraphs), or auto (by dataset)"
    )
    checkpoint_root: str | None = option(
        None, "folder holding grag/ (default: the dataset's or the packaged one)"
    )
    soft_prompt: bool | None = option(
        None,
        "the paper's graph token (a gated GAT over the ego-graphs, projected into the reader's "
        "embeddings) before the hard prompt; needs a white-box reader (--llm hf:NAME); None: "
        "on exactly when the reader is white-box",
    )
    max_tokens: int = option(
        128, "most tokens in a free-text answer (answer_list off)", range=ANSWER_TOKENS
    )
