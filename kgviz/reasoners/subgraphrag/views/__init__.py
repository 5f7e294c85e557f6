"""How SubgraphRAG's stages are drawn: the triple scores (with the candidate counts in their
title) and the scored evidence graph; the prompt view shows the reply."""

from __future__ import annotations

from kgviz.reasoners.subgraphrag.records import (
    CANDIDATES,
    SubgraphRAGCandidates,
    SubgraphRAGGeneration,
    TripleScores,
)
from kgviz.reasoners.subgraphrag.views.triple_scores import (
    scored_evidence_graph,
    triple_scores_figure,
)
from kgviz.viz.marks import Marks
from kgviz.viz.view_table import ViewTable

VIEWS = ViewTable(
    views={
        SubgraphRAGCandidates: None,
        TripleScores: lambda record, trace, kg: triple_scores_figure(
            record, trace.stages.get(CANDIDATES)
        ),
        SubgraphRAGGeneration: None,
    },
    evidence={
        TripleScores: lambda record, trace, kg: scored_evidence_graph(
            record, trace.answers, Marks.of(trace), kg
        )
    },
)
