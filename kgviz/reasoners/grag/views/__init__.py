"""How GRAG's stages are drawn: the ego-graph ranking, the gate values, the description tab,
which draws the pruned ego-graphs (the evidence) beside their text, and the graph token."""

from __future__ import annotations

from kgviz.reasoners.grag.records import (
    EGO_GRAPHS,
    PRUNING,
    Description,
    EgoRetrieval,
    GraphToken,
    PrunedEgoGraph,
)
from kgviz.reasoners.grag.views.description import description_view
from kgviz.reasoners.grag.views.ego_ranking import ego_ranking_figure
from kgviz.reasoners.grag.views.gates import gate_figure
from kgviz.reasoners.grag.views.graph_token import graph_token_view
from kgviz.viz.marks import Marks
from kgviz.viz.view_table import ViewTable

VIEWS = ViewTable(
    views={
        EgoRetrieval: lambda record, trace, kg: ego_ranking_figure(record),
        PrunedEgoGraph: lambda record, trace, kg: gate_figure(record, trace.stages.get(EGO_GRAPHS)),
        Description: lambda record, trace, kg: description_view(
            record, trace.stages.get(PRUNING), trace.answers, marks=Marks.of(trace), kg=kg
        ),
        GraphToken: lambda record, trace, kg: graph_token_view(
            record,
            trace.stages.get(PRUNING),
            trace.evidence,
            trace.answers,
            marks=Marks.of(trace),
            kg=kg,
        ),
    },
    evidence={PrunedEgoGraph: None},
)
