"""Views: pure functions from trace records to what a notebook displays (plotly figures or HTML).

`stage_views(trace, kg)` renders every stage of a trace. Each method draws its own records in its
folder (the `views` package: its drawing modules and the `ViewTable` its spec names); what every
method shares (entity linking, the generic evidence graph, prompt, timing, graph rendering and
escaping) is here, and names no method. Views draw what the trace recorded and never recompute
retrieval.
"""

from __future__ import annotations

from typing import Any

from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.citations import Citations
from kgviz.reasoners.grounding import Grounding
from kgviz.reasoners.linking import EntityLinking
from kgviz.reasoners.registry import method_names, method_spec
from kgviz.runs.run import EvidenceEdit
from kgviz.trace import Trace
from kgviz.viz.citations_view import citations_html
from kgviz.viz.diff_view import edit_html
from kgviz.viz.escape import esc
from kgviz.viz.evidence_view import evidence_graph
from kgviz.viz.grounding_view import grounding_table
from kgviz.viz.linking_view import linking_table
from kgviz.viz.marks import Marks
from kgviz.viz.prompt_view import highlight, prompt_view
from kgviz.viz.timing_view import timing_figure
from kgviz.viz.view_table import EvidenceView, View, ViewOutput, ViewTable

COMMON_VIEWS = ViewTable(
    views={
        EntityLinking: lambda record, trace, kg: linking_table(record),
        Grounding: lambda record, trace, kg: grounding_table(record),
        EvidenceEdit: lambda record, trace, kg: edit_html(record),
        Citations: lambda record, trace, kg: citations_html(record, trace, kg),
    }
)


def view_table(method: str) -> ViewTable:
    """The common views with method `method`'s own over them (an unknown method: the common)."""
    own = method_spec(method).view_table() if method in method_names() else None
    return COMMON_VIEWS | own if own is not None else COMMON_VIEWS


def _every_view_table() -> ViewTable:
    """Every registered method's views, for records a method borrowed from another."""
    table = COMMON_VIEWS
    for name in method_names():
        table = table | view_table(name)
    return table


def stage_views(trace: Trace, kg: KnowledgeGraph | None = None) -> dict[str, ViewOutput]:
    """Each recorded stage's view in run order, then `evidence` (the first record with an
    evidence view in the table draws it, else the generic graph does), `prompt` (LLM calls and
    answer) and `timing`. `kg` names entities in the search tree and links the graph views to the
    KG (entity degrees on hover, neighbours on click)."""
    table = view_table(trace.method)
    views: dict[str, ViewOutput] = {}
    evidence: tuple[Any, EvidenceView | None] | None = None
    for name, record in trace.stages.items():
        items = record if isinstance(record, list) else [record]
        if record is None or not items:
            views[name] = _note(name, "nothing recorded")
            continue
        record_type = type(items[0])
        if record_type not in table.views:
            table = table | _every_view_table()
        if record_type not in table.views:
            views[name] = _note(name, f"no view for {record_type.__name__} records")
        elif (view := table.views[record_type]) is not None:
            views[name] = view(record, trace, kg)
        if evidence is None and record_type in table.evidence:
            evidence = record, table.evidence[record_type]
    if trace.evidence:
        if evidence is None:
            views["evidence"] = evidence_graph(
                trace.evidence, trace.answers, marks=Marks.of(trace), kg=kg
            )
        elif (draw := evidence[1]) is not None:
            views["evidence"] = draw(evidence[0], trace, kg)
    if trace.llm_calls:
        views["prompt"] = prompt_view(trace)
    views["timing"] = timing_figure(trace)
    return views


def _note(stage: str, text: str) -> str:
    return f'<p style="font:13px sans-serif"><b>{esc(stage)}</b>: {esc(text)}</p>'


__all__ = [
    "COMMON_VIEWS",
    "EvidenceView",
    "View",
    "ViewOutput",
    "ViewTable",
    "evidence_graph",
    "highlight",
    "linking_table",
    "prompt_view",
    "stage_views",
    "timing_figure",
    "view_table",
]
