"""Views: pure functions from trace records to what a notebook displays (plotly figures or HTML).

`stage_views(trace, kg)` renders every stage of a trace; methods add views for their own record
types with `register_view`, and say how their evidence is drawn with `register_evidence`. Views
draw what the trace recorded and never recompute retrieval.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.gnnrag import records as gnnrag_records
from kgviz.reasoners.gnnrag.records import Augmentation, NodeScores, PathRecord, SubgraphRecord
from kgviz.reasoners.grag.records import Description, EgoRetrieval, PrunedEgoGraph
from kgviz.reasoners.kaping import TripleRanking
from kgviz.reasoners.linking import EntityLinking
from kgviz.reasoners.simgrag.pools import PatternPools
from kgviz.reasoners.simgrag.query_pattern import QueryPattern
from kgviz.reasoners.simgrag.reasoner import Generation, SearchRecord
from kgviz.reasoners.simgrag.subgraphs import Subgraph
from kgviz.reasoners.subgraphrag import records as subgraphrag_records
from kgviz.reasoners.subgraphrag.records import TripleScores
from kgviz.trace import Trace
from kgviz.viz.description_view import description_view
from kgviz.viz.ego_graph_view import ego_ranking_figure, gate_figure
from kgviz.viz.html import esc
from kgviz.viz.kaping_view import triple_ranking_figure
from kgviz.viz.linking_view import linking_table
from kgviz.viz.node_scores_view import node_scores_figure
from kgviz.viz.paths_view import augmentation_graph, gnn_paths_graph
from kgviz.viz.pattern_view import pattern_graph
from kgviz.viz.pools_view import pools_figure
from kgviz.viz.prompt_view import highlight, prompt_view
from kgviz.viz.search_tree_view import search_tree_figure
from kgviz.viz.subgraph_view import evidence_graph, subgraphs_graph
from kgviz.viz.timing_view import timing_figure
from kgviz.viz.triple_scores_view import scored_evidence_graph, triple_scores_figure
from kgviz.viz.triples_view import scored_triples_figure

View = Callable[[Any, Trace, KnowledgeGraph | None], object]
EvidenceView = Callable[[Any, Trace], object]
_VIEWS: dict[type, View | None] = {}
_EVIDENCE: dict[type, EvidenceView | None] = {}


def register_view(record_type: type, view: View | None) -> None:
    """Render stage records of `record_type` (or lists of them) with `view(record, trace, kg)`;
    `None` shows nothing for them (e.g. records the prompt view already covers)."""
    _VIEWS[record_type] = view


def register_evidence(record_type: type, view: EvidenceView | None) -> None:
    """In a trace with records of `record_type`, draw the evidence with `view(record, trace)`
    instead of the generic evidence graph; `None` draws none (a stage view already shows it)."""
    _EVIDENCE[record_type] = view


def stage_views(trace: Trace, kg: KnowledgeGraph | None = None) -> dict[str, object]:
    """Each recorded stage's view in run order, then `evidence` (the first record with a
    registered evidence view draws it, else the generic graph does), `prompt` (LLM calls and
    answer) and `timing`. `kg` names entities in the search tree."""
    views: dict[str, object] = {}
    evidence: tuple[Any, EvidenceView | None] | None = None
    for name, record in trace.stages.items():
        items = record if isinstance(record, list) else [record]
        record_type = type(items[0]) if items else list
        if record is None or not items:
            views[name] = _note(name, "nothing recorded")
            continue
        if record_type not in _VIEWS:
            views[name] = _note(name, f"no view for {record_type.__name__} records")
        elif (view := _VIEWS[record_type]) is not None:
            views[name] = view(record, trace, kg)
        if evidence is None and record_type in _EVIDENCE:
            evidence = record, _EVIDENCE[record_type]
    if trace.evidence:
        if evidence is None:
            views["evidence"] = evidence_graph(trace.evidence, trace.answers)
        elif (draw := evidence[1]) is not None:
            views["evidence"] = draw(evidence[0], trace)
    if trace.llm_calls:
        views["prompt"] = prompt_view(trace)
    views["timing"] = timing_figure(trace)
    return views


def _note(stage: str, text: str) -> str:
    return f'<p style="font:13px sans-serif"><b>{esc(stage)}</b>: {esc(text)}</p>'


def _topics(trace: Trace) -> list[str]:
    linking = trace.stages.get("linking")
    return linking.names if linking is not None else []


register_view(QueryPattern, lambda record, trace, kg: pattern_graph(record))
register_view(PatternPools, lambda record, trace, kg: pools_figure(
    record, trace.stages.get("subgraphs") or ()))
register_view(SearchRecord, lambda record, trace, kg: search_tree_figure(
    record, trace.stages["pattern"], kg))
register_view(Subgraph, lambda record, trace, kg: subgraphs_graph(record))
register_view(Generation, None)
register_view(EntityLinking, lambda record, trace, kg: linking_table(record))
register_view(TripleRanking, lambda record, trace, kg: triple_ranking_figure(record))
register_evidence(Subgraph, None)
# SubgraphRAG: candidate counts join the scores' title; the prompt view shows the reply
register_view(subgraphrag_records.CandidateRecord, None)
register_view(TripleScores, lambda record, trace, kg: triple_scores_figure(
    record, trace.stages.get("candidates")))
register_view(subgraphrag_records.Generation, None)
register_evidence(TripleScores, lambda record, trace: scored_evidence_graph(record, trace.answers))
# GNN-RAG: subgraph sizes and candidates join the probabilities' chart; the paths are the evidence
register_view(SubgraphRecord, None)
register_view(NodeScores, lambda record, trace, kg: node_scores_figure(
    record, trace.stages.get("subgraph")))
register_view(gnnrag_records.CandidateRecord, None)
register_view(PathRecord, lambda record, trace, kg: gnn_paths_graph(
    record, trace.stages.get("gnn"), _topics(trace)))
register_view(Augmentation, lambda record, trace, kg: augmentation_graph(
    record, trace.stages.get("gnn"), _topics(trace)))
register_evidence(PathRecord, None)
register_evidence(Augmentation, None)
# GRAG: the description tab draws the pruned ego-graphs (the evidence) beside their text
register_view(EgoRetrieval, lambda record, trace, kg: ego_ranking_figure(record))
register_view(PrunedEgoGraph, lambda record, trace, kg: gate_figure(
    record, trace.stages.get("ego_graphs")))
register_view(Description, lambda record, trace, kg: description_view(
    record, trace.stages.get("pruning"), trace.answers))
register_evidence(PrunedEgoGraph, None)

__all__ = ["augmentation_graph", "description_view", "ego_ranking_figure", "evidence_graph",
           "gate_figure", "gnn_paths_graph", "highlight", "linking_table", "node_scores_figure",
           "pattern_graph", "pools_figure", "prompt_view", "register_evidence", "register_view",
           "scored_evidence_graph", "scored_triples_figure", "search_tree_figure", "stage_views",
           "subgraphs_graph", "timing_figure", "triple_ranking_figure", "triple_scores_figure"]
