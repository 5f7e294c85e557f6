"""SubgraphRAG: the scorer's probability over every candidate triple with the top-K cut, every
triple ranked in a scrolling table (those sent to the LLM marked), and the evidence graph weighted
by score."""

from __future__ import annotations

from collections.abc import Iterable

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.subgraphrag.records import SubgraphRAGCandidates, TripleScores
from kgviz.viz.escape import plotly_text
from kgviz.viz.evidence_view import evidence_graph
from kgviz.viz.marks import Marks
from kgviz.viz.ranked_bars import CUT_LINE, KEPT, LEFT_OUT

TABLE_ROWS = 30  # rows in view; the table scrolls to the others
ROW_PX = 26  # a row's height: with room below the text, the next row does not cut underscores
TEXT_SIZE = 12
CHART_PX = 260
GAP_PX = 70
BINS = 50
KEPT_ROW = "#deebf7"


def triple_scores_figure(
    scores: TripleScores, candidates: SubgraphRAGCandidates | None = None, rows: int = TABLE_ROWS
) -> go.Figure:
    """Top: how the candidates' scores spread (log counts), the top K and the rest apart, the cut
    marked. Below: every triple by rank, evidence rows shaded, `rows` of them in view and the
    table scrolling to the rest."""
    triples = scores.triples
    kept = [t.score for t in triples if t.kept]
    left_out = [t.score for t in triples if not t.kept]
    table_px = ROW_PX * (min(rows, len(triples)) + 1) + 2  # the header, then the rows in view
    figure = make_subplots(
        rows=2,
        cols=1,
        specs=[[{"type": "xy"}], [{"type": "table"}]],
        row_heights=[CHART_PX, table_px],
        vertical_spacing=GAP_PX / (CHART_PX + GAP_PX + table_px),
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
    figure.add_trace(_ranked_table(scores), row=2, col=1)
    scroll = f"; the table scrolls through all {len(triples)}" if len(triples) > rows else ""
    title = (
        f"SubgraphRAG: top {len(kept)} of {len(triples)} candidate triples sent to the LLM"
        f"<br><sup>{plotly_text(_summary(scores, candidates))}{scroll}</sup>"
    )
    figure.update_layout(
        title=title,
        height=80 + CHART_PX + GAP_PX + table_px + 10,
        barmode="stack",
        margin={"l": 10, "r": 10, "t": 80, "b": 10},
        legend={"orientation": "h", "y": 1.02, "x": 1, "xanchor": "right"},
    )
    figure.update_xaxes(title_text="scorer probability", range=[0, 1], row=1, col=1)
    figure.update_yaxes(
        title_text="triples", type="log", dtick=1, minor={"showgrid": False}, row=1, col=1
    )  # ticks at 1, 10, 100, … only
    return figure


def _ranked_table(scores: TripleScores) -> go.Table:
    """Every triple by rank, those sent to the LLM shaded and ticked."""
    columns: list[list[str]] = [[], [], [], [], [], []]
    for rank, triple in enumerate(scores.triples, 1):
        values = (
            str(rank),
            f"{triple.score:.4f}",
            triple.head,
            triple.relation,
            triple.tail,
            "✓" if triple.kept else "",
        )
        for column, value in zip(columns, values):
            column.append(plotly_text(value))
    fills = [KEPT_ROW if triple.kept else "#ffffff" for triple in scores.triples]
    return go.Table(
        columnwidth=[0.6, 0.9, 3, 2, 3, 1],
        header={
            "values": ["rank", "score", "head", "relation", "tail", "evidence"],
            "align": "left",
            "fill_color": "#f0f0f0",
            "height": ROW_PX,
            "font": {"size": TEXT_SIZE},
        },
        cells={
            "values": columns,
            "align": "left",
            "fill_color": [fills] * len(columns),
            "height": ROW_PX,
            "font": {"size": TEXT_SIZE},
        },
    )


def scored_evidence_graph(
    scores: TripleScores,
    answers: Iterable[str] = (),
    marks: Marks | None = None,
    kg: KnowledgeGraph | None = None,
) -> str:
    """HTML: the evidence (the top-K triples), each edge in its score's colour and width, a
    slider filtering them by score; gold answers and topic entities in `marks` bordered; with
    `kg`, entities link to it."""
    kept = {(t.head, t.relation, t.tail): t.score for t in scores.triples if t.kept}
    return evidence_graph(kept, answers, triple_scores=kept, marks=marks, kg=kg)


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
