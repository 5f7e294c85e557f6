"""How SimGRAG's stages are drawn: pattern graph, candidate pools (marking the candidates the
subgraphs used), search tree and subgraphs; the prompt view shows the generation."""

from __future__ import annotations

from kgviz.reasoners.simgrag.pools import PatternPools
from kgviz.reasoners.simgrag.query_pattern import QueryPattern
from kgviz.reasoners.simgrag.records import (
    PATTERN,
    POOLS,
    SUBGRAPHS,
    SearchRecord,
    SimGRAGGeneration,
)
from kgviz.reasoners.simgrag.subgraphs import Subgraph
from kgviz.reasoners.simgrag.views.pattern import pattern_graph
from kgviz.reasoners.simgrag.views.pools import pools_figure
from kgviz.reasoners.simgrag.views.search_tree import search_tree_figure
from kgviz.reasoners.simgrag.views.subgraphs import subgraphs_graph
from kgviz.viz.marks import Marks
from kgviz.viz.view_table import ViewTable

VIEWS = ViewTable(
    views={
        QueryPattern: lambda record, trace, kg: pattern_graph(record),
        PatternPools: lambda record, trace, kg: pools_figure(
            record, trace.stages.get(SUBGRAPHS) or (), Marks.of(trace)
        ),
        SearchRecord: lambda record, trace, kg: search_tree_figure(
            record, trace.stages[PATTERN], kg, Marks.of(trace)
        ),
        Subgraph: lambda record, trace, kg: subgraphs_graph(
            record, Marks.of(trace), kg, trace.stages.get(POOLS)
        ),
        SimGRAGGeneration: None,
    },
    evidence={Subgraph: None},  # the subgraphs tab is the evidence
)
