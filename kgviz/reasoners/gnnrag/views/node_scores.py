"""GNN-RAG: the GNN's most probable answers and the candidates it passed on (the most probable
until they cover the probability mass asked for)."""

from __future__ import annotations

import plotly.graph_objects as go

from kgviz.reasoners.gnnrag.records import NodeScores, SubgraphRecord
from kgviz.viz.marks import Marks
from kgviz.viz.ranked_bars import ranked_bars_figure


def node_scores_figure(
    scores: NodeScores,
    subgraph: SubgraphRecord | None = None,
    limit: int = 20,
    marks: Marks | None = None,
) -> go.Figure:
    """The `limit` most probable entities (topic entities aside) as bars, the answer candidates
    dark; the title gives the probability mass they cover; hover: PageRank from the topic
    entities. Gold answers in `marks` are starred, and the note gives the first one's rank."""
    marks = marks or Marks()
    nodes = [node for node in scores.nodes if not node.topic]
    chosen = sum(node.candidate for node in nodes)
    covered = sum(node.probability for node in nodes if node.candidate)
    sizes = (
        ""
        if subgraph is None
        else (
            f"subgraph: {subgraph.nodes} of {subgraph.khop_nodes} nodes "
            f"within {subgraph.hops} hops (PageRank-pruned), {subgraph.triples} triples; "
        )
    )
    figure = ranked_bars_figure(
        [marks.star(node.name) for node in nodes],
        [node.probability for node in nodes],
        [node.candidate for node in nodes],
        [f"PageRank {node.ppr:.4f}" for node in nodes],
        f"GNN-RAG: {chosen} answer candidate(s) of {len(nodes)} entities, covering "
        f"{covered:.0%} of the answer probability (taken until {scores.mass:.0%})",
        "answer probability",
        limit,
        ("answer candidate", "not a candidate"),
        f"{sizes}topic entities left out{_gold_rank([node.name for node in nodes], marks)}",
    )
    figure.update_xaxes(range=[0, 1])
    return figure


def _gold_rank(names: list[str], marks: Marks) -> str:
    """`; ★ gold answer, the first at rank N`, or that none is in the subgraph (with gold)."""
    if not marks.gold:
        return ""
    rank = next((i for i, name in enumerate(names, start=1) if marks.is_gold(name)), None)
    if rank is None:
        return "; no gold answer in the subgraph"
    return f"; ★ gold answer, the first at rank {rank}"
