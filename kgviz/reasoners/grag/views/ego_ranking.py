"""GRAG's retrieval: the retrieved ego-graphs by similarity to the question."""

from __future__ import annotations

import plotly.graph_objects as go

from kgviz.reasoners.grag.records import EgoRetrieval
from kgviz.viz.ranked_bars import ranked_bars_figure


def ego_ranking_figure(retrieval: EgoRetrieval, limit: int = 30) -> go.Figure:
    """The retrieved ego-graphs, best first, by cosine similarity; hover: their size."""
    egos = retrieval.retrieved
    return ranked_bars_figure(
        [ego.centre for ego in egos],
        [ego.score for ego in egos],
        None,
        [f"{ego.nodes} nodes, {ego.edges} edges" for ego in egos],
        (
            f"GRAG (hard prompt): top {len(egos)} of {retrieval.candidates} ego-graphs "
            "by similarity to the question"
        ),
        "cosine similarity",
        limit,
        None,
        f"{retrieval.hops}-hop ego-graphs centred on: {retrieval.scope}",
    )
