"""GRAG's soft pruning: the gate scores of the retrieved ego-graphs' edges, kept best first while
the description fits its token budget."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from kgviz.reasoners.grag.records import EgoRetrieval, GatedEdge, PrunedEgoGraph
from kgviz.viz.escape import plotly_text
from kgviz.viz.ranked_bars import CUT_LINE, KEPT, LABEL_CHARS, LEFT_OUT, triple_text

JITTER = 0.6  # vertical spread of one ego-graph's edges around its row
GOLDEN = 0.618034


def gate_figure(
    pruned: Sequence[PrunedEgoGraph], retrieval: EgoRetrieval | None = None
) -> go.Figure:
    """One row per ego-graph (at least one; its similarity and counts), one dot per edge at its
    score (the mean gate of the edge and its end nodes), kept dark and soft-pruned light, the
    lowest kept score dashed (where the budget cut the gate order)."""
    budget = pruned[0].budget
    similarity = [ego.score for ego in retrieval.retrieved] if retrieval is not None else []
    rows: list[str] = []
    points: dict[bool, tuple[list[float], list[float], list[str]]] = {
        True: ([], [], []),
        False: ([], [], []),
    }
    for row, graph in enumerate(pruned):
        kept_here = sum(edge.kept for edge in graph.edges)
        score = f" · similarity {similarity[row]:.3f}" if row < len(similarity) else ""
        rows.append(
            f"#{row + 1} {plotly_text(graph.centre, LABEL_CHARS)}{score}<br>"
            f"{kept_here} kept, {len(graph.edges) - kept_here} soft-pruned"
        )
        for index, edge in enumerate(graph.edges):
            x, y, hover = points[edge.kept]
            x.append(edge.score)
            y.append(row + JITTER * ((index * GOLDEN) % 1.0 - 0.5))
            hover.append(_hover(edge))
    edges = {(e.head, e.relation, e.tail): e for graph in pruned for e in graph.edges}
    kept = sum(edge.kept for edge in edges.values())
    kept_scores = [e.score for e in edges.values() if e.kept]
    figure = go.Figure()
    for is_kept, (x, y, hover) in points.items():
        figure.add_trace(
            go.Scatter(
                x=x,
                y=y,
                mode="markers",
                hovertext=hover,
                hoverinfo="text",
                name="kept" if is_kept else "soft-pruned",
                marker={
                    "color": KEPT if is_kept else LEFT_OUT,
                    "size": 8,
                    "line": {"width": 0.5, "color": "#555555"},
                },
            )
        )
    if kept_scores and kept < len(edges):
        figure.add_vline(
            x=min(kept_scores), **CUT_LINE, annotation_text=f"budget cut {min(kept_scores):.3f}"
        )
    figure.update_layout(
        title={
            "text": f"GRAG (hard prompt) soft pruning: {kept} of {len(edges)} distinct edges kept, "
            f"{len(edges) - kept} soft-pruned<br><sup>the best-scoring edges are "
            f"described to the LLM while they fit {budget:,} tokens; the others are "
            "left out</sup>",
            "y": 0.97,
            "yanchor": "top",
            "x": 0.01,
        },
        xaxis={"title": "edge score (mean gate of the edge and its end nodes)", "range": [0, 1]},
        yaxis={
            "tickvals": list(range(len(rows))),
            "ticktext": rows,
            "autorange": "reversed",
            "zeroline": False,
        },
        height=180 + 80 * len(rows),
        margin={"l": 10, "r": 10, "t": 95, "b": 40},
        legend={"orientation": "h", "y": -0.2},
    )
    return figure


def _hover(edge: GatedEdge) -> str:
    verdict = "kept" if edge.kept else "soft-pruned (outside the description budget)"
    return (
        f"<b>{plotly_text(triple_text((edge.head, edge.relation, edge.tail)))}</b><br>"
        f"score {edge.score:.4f}, edge gate {edge.gate:.4f}<br>{verdict}"
    )
