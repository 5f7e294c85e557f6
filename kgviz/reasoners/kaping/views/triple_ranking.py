"""KAPING: the candidate triples ranked by similarity to the question, the kept top-k marked."""

from __future__ import annotations

import plotly.graph_objects as go

from kgviz.reasoners.kaping.records import TripleRanking
from kgviz.viz.ranked_bars import ranked_bars_figure, triple_text


def triple_ranking_figure(ranking: TripleRanking, limit: int = 30) -> go.Figure:
    """Cosine similarity per candidate triple, best first; the top-k sent to the LLM dark."""
    triples = [(c.head, c.relation, c.tail) for c in ranking.candidates]
    dropped = f", {ranking.dropped} left out by the cap" if ranking.dropped else ""
    return ranked_bars_figure(
        [triple_text(triple) for triple in triples],
        [c.score for c in ranking.candidates],
        [c.kept for c in ranking.candidates],
        [f"hop {c.hop}" for c in ranking.candidates],
        f"KAPING: top {min(ranking.top_k, len(triples))} of {len(triples)} candidate triples"
        f"{dropped}",
        "cosine similarity to the question",
        limit,
    )
