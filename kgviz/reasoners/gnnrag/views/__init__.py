"""How GNN-RAG's stages are drawn: the GNN's node probabilities (with the subgraph sizes and the
candidates), and the reasoning paths, which are the evidence."""

from __future__ import annotations

from kgviz.reasoners.gnnrag.records import (
    GNN,
    SUBGRAPH,
    Augmentation,
    GNNRAGCandidates,
    NodeScores,
    PathRecord,
    SubgraphRecord,
)
from kgviz.reasoners.gnnrag.views.node_scores import node_scores_figure
from kgviz.reasoners.gnnrag.views.paths import augmentation_graph, gnn_paths_graph
from kgviz.reasoners.linking import LINKING
from kgviz.trace import Trace
from kgviz.viz.marks import Marks
from kgviz.viz.view_table import ViewTable


def topic_names(trace: Trace) -> list[str]:
    linking = trace.stages.get(LINKING)
    return linking.names if linking is not None else []


VIEWS = ViewTable(
    views={
        SubgraphRecord: None,
        NodeScores: lambda record, trace, kg: node_scores_figure(
            record, trace.stages.get(SUBGRAPH), marks=Marks.of(trace)
        ),
        GNNRAGCandidates: None,
        PathRecord: lambda record, trace, kg: gnn_paths_graph(
            record, trace.stages.get(GNN), topic_names(trace), Marks.of(trace), kg
        ),
        Augmentation: lambda record, trace, kg: augmentation_graph(
            record, trace.stages.get(GNN), topic_names(trace), Marks.of(trace), kg
        ),
    },
    evidence={PathRecord: None, Augmentation: None},
)
