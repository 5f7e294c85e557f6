"""SubgraphRAG: the scorer's probability over every candidate triple with the top-K cut, the best
triples ranked (those sent to the LLM marked), and the evidence graph weighted by score."""

from __future__ import annotations

from collections.abc import Iterable

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from kgviz.reasoners.subgraphrag.records import SubgraphRAGCandidates, TripleScores
from kgviz.viz.html import plotly_text
from kgviz.viz.subgraph_view import evidence_graph
from kgviz.viz.triples_view import CUT_LINE, KEPT, LEFT_OUT

TABLE_ROWS = 30
AROUND_CUT = 2  # ranks shown on each side of the cut when it lies below the table's first rows
BINS = 50
KEPT_ROW = "#deebf7"


def triple_scores_figure(
    scores: TripleScores, candidates: SubgraphRAGCandidates | None = None, rows: int = TABLE_ROWS
) -> go.Figure:
    """Top: how the candidates' scores spread (log counts), the top K and the rest apart, the cut
    marked. Below: the `rows` best triples and those around the cut, evidence rows shaded."""
    triples = scores.triples
    kept = [t.score for t in triples if t.kept]
    left_out = [t.score for t in triples if not t.kept]
    figure = make_subplots(
        rows=2,
        cols=1,
        specs=[[{"type": "xy"}], [{"type": "table"}]],
        row_heights=[0.3, 0.7],
        vertical_spacing=0.1,
    )
    for values, name, colour in (
        (kept, f"top {len(kept)}: evidence", KEPT),
        (left_out, f"left out: {len(left_out)}", LEFT_OUT),
    ):
        figure.add_trace(
            go.Histogram(
                x=values,
                name=name,
                marker_color=colour,
                xbins={"start": 0.0, "end": 1.0, "size": 1.0 / BINS},
            ),
            row=1,
            col=1,
        )
    if kept and left_out:
        figure.add_vline(
            x=kept[-1],
            row=1,
            col=1,
            **CUT_LINE,
            annotation_text=f"top-{scores.top_k} cut: score ≥ {kept[-1]:.4f}",
        )
    shown = _table_ranks(len(triples), scores.top_k, rows)
    cells: list[list[str]] = [[], [], [], [], [], []]
    fills: list[str] = []
    for previous, rank in zip([-1, *shown], shown):
        if rank > previous + 1:
            for column in cells:
                column.append("…")
            fills.append("#ffffff")
        triple = triples[rank]
        for column, value in zip(
            cells,
            (
                str(rank + 1),
                f"{triple.score:.4f}",
                triple.head,
                triple.relation,
                triple.tail,
                "✓" if triple.kept else "",
            ),
        ):
            column.append(plotly_text(value))
        fills.append(KEPT_ROW if triple.kept else "#ffffff")
    figure.add_trace(
        go.Table(
            columnwidth=[0.6, 0.9, 3, 2, 3, 1],
            header={
                "values": ["rank", "score", "head", "relation", "tail", "evidence"],
                "align": "left",
                "fill_color": "#f0f0f0",
            },
            cells={"values": cells, "align": "left", "fill_color": [fills] * len(cells)},
        ),
        row=2,
        col=1,
    )
    title = (
        f"SubgraphRAG: top {len(kept)} of {len(triples)} candidate triples sent to the LLM"
        f"<br><sup>{plotly_text(_summary(scores, candidates))}</sup>"
    )
    figure.update_layout(
        title=title,
        height=420 + 26 * len(fills),
        barmode="stack",
        margin={"l": 10, "r": 10, "t": 80, "b": 10},
        legend={"orientation": "h", "y": 1.02, "x": 1, "xanchor": "right"},
    )
    figure.update_xaxes(title_text="scorer probability", range=[0, 1], row=1, col=1)
    figure.update_yaxes(
        title_text="triples", type="log", dtick=1, minor={"showgrid": False}, row=1, col=1
    )  # ticks at 1, 10, 100, … only
    return figure


def scored_evidence_graph(scores: TripleScores, answers: Iterable[str] = ()) -> str:
    """HTML: the evidence (the top-K triples), each edge in its score's colour and width."""
    kept = {(t.head, t.relation, t.tail): t.score for t in scores.triples if t.kept}
    return evidence_graph(kept, answers, triple_scores=kept)


def _table_ranks(total: int, top_k: int, rows: int) -> list[int]:
    """The first `rows` ranks, and those around the cut when it lies further down."""
    ranks = set(range(min(rows, total)))
    if rows <= top_k < total:
        ranks.update(range(top_k - AROUND_CUT, min(top_k + AROUND_CUT, total)))
    return sorted(ranks)


def _summary(scores: TripleScores, candidates: SubgraphRAGCandidates | None) -> str:
    parts = []
    if candidates is not None:
        hops = ", ".join(f"{count} at hop {hop}" for hop, count in candidates.per_hop.items())
        parts.append(
            f"{candidates.triples} candidates over {candidates.entities} entities ({hops})"
        )
        if candidates.hubs:
            parts.append(f"{len(candidates.hubs)} hub(s) not walked through")
        if candidates.cut:
            parts.append(f"{candidates.cut} triples beyond the candidate cap")
    if scores.checkpoint:
        parts.append(f"scorer: {scores.checkpoint}")
    return "; ".join(parts)
