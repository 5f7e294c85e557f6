"""GRAG's graph token: what the soft prompt carries. The evidence graph with each triple in the
colour and width of the GAT's attention on it (last layer, mean over heads, scaled to the
ego-graph's strongest edge) and each entity sized by the token's node gate; then the gates
inside the GAT beside the hard prompt's pruning gates, the largest moves first."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.grag.records import GraphToken, PrunedEgoGraph
from kgviz.trace import StringTriple
from kgviz.viz.escape import esc
from kgviz.viz.evidence_view import evidence_graph
from kgviz.viz.marks import Marks

SHOWN_MOVES = 12  # gate moves listed, largest first
TABLE = 'style="border-collapse:collapse;font:13px sans-serif"'
CELL = 'style="padding:2px 8px;border-bottom:1px solid #ddd;text-align:left"'


def token_attention(
    token: GraphToken, pruned: Sequence[PrunedEgoGraph]
) -> dict[StringTriple, float]:
    """Each edge's attention relative to the strongest edge of its ego-graph (the best-ranked
    ego-graph's value for an edge several hold)."""
    scores: dict[StringTriple, float] = {}
    for graph, ego in zip(token.graphs, pruned, strict=True):
        top = max(graph.attention, default=0.0) or 1.0
        for edge, weight in zip(ego.edges, graph.attention, strict=True):
            scores.setdefault((edge.head, edge.relation, edge.tail), weight / top)
    return scores


def gate_moves(
    token: GraphToken, pruned: Sequence[PrunedEgoGraph]
) -> list[tuple[str, float, float]]:
    """(element, pruning gate, token gate) of every distinct node and edge, largest move first."""
    moves: dict[str, tuple[float, float]] = {}
    for graph, ego in zip(token.graphs, pruned, strict=True):
        for node, gate in zip(ego.nodes, graph.node_gates, strict=True):
            moves.setdefault(node.name, (node.gate, gate))
        for edge, gate in zip(ego.edges, graph.edge_gates, strict=True):
            moves.setdefault(f"({edge.head}, {edge.relation}, {edge.tail})", (edge.gate, gate))
    rows = [(name, before, after) for name, (before, after) in moves.items()]
    return sorted(rows, key=lambda row: -abs(row[2] - row[1]))


def graph_token_view(
    token: GraphToken,
    pruned: Sequence[PrunedEgoGraph] | None,
    evidence: Sequence[StringTriple],
    answers: Sequence[str] = (),
    marks: Marks | None = None,
    kg: KnowledgeGraph | None = None,
) -> str:
    """HTML: a summary line, the attention on the evidence graph, and the gate moves."""
    norm = float(np.linalg.norm(token.vector))
    head = (
        f'<p style="font:13px sans-serif">Graph token: one vector of {len(token.vector):,} '
        f"(norm {norm:.2f}) from {len(token.graphs)} ego-graph(s), fed before the hard prompt "
        f"to {esc(token.reader)}; encoder {esc(token.checkpoint)}.</p>"
    )
    if not pruned:
        return head
    attention = token_attention(token, pruned)
    node_gates = {
        node.name: gate
        for graph, ego in zip(token.graphs, pruned, strict=True)
        for node, gate in zip(ego.nodes, graph.node_gates, strict=True)
    }
    drawn = [t for t in evidence if t in attention] or list(attention)[:100]
    graph = evidence_graph(
        drawn,
        highlight=answers,
        scores={name: node_gates[name] for t in drawn for name in (t[0], t[2])},
        triple_scores={t: attention[t] for t in drawn},
        marks=marks,
        kg=kg,
        score_label="GAT attention (relative)",
    )
    moves = gate_moves(token, pruned)
    shift = np.mean([after - before for _, before, after in moves]) if moves else 0.0
    rows = "".join(
        f"<tr><td {CELL}>{esc(name)}</td><td {CELL}>{before:.3f}</td><td {CELL}>{after:.3f}</td>"
        f"<td {CELL}>{after - before:+.3f}</td></tr>"
        for name, before, after in moves[:SHOWN_MOVES]
    )
    table = (
        f'<p style="font:13px sans-serif">Gates of the {len(moves)} distinct entities and edges: '
        "before (the hard prompt's pruning gate) and after (inside the graph token's GAT, trained "
        f"through the reader); mean move {shift:+.3f}. Largest moves:</p>"
        f"<table {TABLE}><tr><th {CELL}>entity or edge</th><th {CELL}>before</th>"
        f"<th {CELL}>after</th><th {CELL}>move</th></tr>{rows}</table>"
    )
    key = (
        '<p style="font:13px sans-serif">Edges: attention of the last GAT layer (mean over '
        "heads) relative to the strongest edge of their ego-graph; entities sized by their gate "
        "inside the token.</p>"
    )
    return head + key + graph + table
