"""Views: pure functions from trace records to what a notebook displays (plotly figures or HTML).

`stage_views(trace, kg)` renders every stage of a trace; methods add views for their own record
types with `register_view`. Views draw what the trace recorded and never recompute retrieval.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.kaping import TripleRanking
from kgviz.reasoners.linking import EntityLinking
from kgviz.reasoners.simgrag.pools import PatternPools
from kgviz.reasoners.simgrag.query_pattern import QueryPattern
from kgviz.reasoners.simgrag.reasoner import Generation, SearchRecord
from kgviz.reasoners.simgrag.subgraphs import Subgraph
from kgviz.trace import Trace
from kgviz.viz.html import esc
from kgviz.viz.kaping_view import triple_ranking_figure
from kgviz.viz.linking_view import linking_table
from kgviz.viz.pattern_view import pattern_graph
from kgviz.viz.pools_view import pools_figure
from kgviz.viz.prompt_view import highlight, prompt_view
from kgviz.viz.search_tree_view import search_tree_figure
from kgviz.viz.subgraph_view import evidence_graph, subgraphs_graph
from kgviz.viz.timing_view import timing_figure
from kgviz.viz.triples_view import scored_triples_figure

View = Callable[[Any, Trace, KnowledgeGraph | None], object]
_VIEWS: dict[type, View | None] = {}


def register_view(record_type: type, view: View | None) -> None:
    """Render stage records of `record_type` (or lists of them) with `view(record, trace, kg)`;
    `None` shows nothing for them (e.g. records the prompt view already covers)."""
    _VIEWS[record_type] = view


def stage_views(trace: Trace, kg: KnowledgeGraph | None = None) -> dict[str, object]:
    """Each recorded stage's view in run order, then `evidence` (unless subgraphs were shown),
    `prompt` (LLM calls and answer) and `timing`. `kg` names entities in the search tree."""
    views: dict[str, object] = {}
    for name, record in trace.stages.items():
        items = record if isinstance(record, list) else [record]
        record_type = type(items[0]) if items else list
        if record is None or not items:
            views[name] = _note(name, "nothing recorded")
        elif record_type not in _VIEWS:
            views[name] = _note(name, f"no view for {record_type.__name__} records")
        elif (view := _VIEWS[record_type]) is not None:
            views[name] = view(record, trace, kg)
    if trace.evidence and not any(isinstance(r, list) and r and isinstance(r[0], Subgraph)
                                  for r in trace.stages.values()):
        views["evidence"] = evidence_graph(trace.evidence, trace.answers)
    if trace.llm_calls:
        views["prompt"] = prompt_view(trace)
    views["timing"] = timing_figure(trace)
    return views


def _note(stage: str, text: str) -> str:
    return f'<p style="font:13px sans-serif"><b>{esc(stage)}</b>: {esc(text)}</p>'


register_view(QueryPattern, lambda record, trace, kg: pattern_graph(record))
register_view(PatternPools, lambda record, trace, kg: pools_figure(
    record, trace.stages.get("subgraphs") or ()))
register_view(SearchRecord, lambda record, trace, kg: search_tree_figure(
    record, trace.stages["pattern"], kg))
register_view(Subgraph, lambda record, trace, kg: subgraphs_graph(record))
register_view(Generation, None)
register_view(EntityLinking, lambda record, trace, kg: linking_table(record))
register_view(TripleRanking, lambda record, trace, kg: triple_ranking_figure(record))

__all__ = ["evidence_graph", "highlight", "linking_table", "pattern_graph", "pools_figure",
           "prompt_view", "register_view", "scored_triples_figure", "search_tree_figure",
           "stage_views", "subgraphs_graph", "timing_figure", "triple_ranking_figure"]
