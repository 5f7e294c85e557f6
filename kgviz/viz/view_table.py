"""How a method's stage records are drawn: its view table, declared in the method's folder."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import plotly.graph_objects as go

from kgviz.kg.graph import KnowledgeGraph
from kgviz.trace import Trace

ViewOutput: TypeAlias = "str | go.Figure"  # HTML, or a plotly figure
View = Callable[[Any, Trace, KnowledgeGraph | None], ViewOutput]
EvidenceView = View


@dataclass(frozen=True)
class ViewTable:
    """`views`: for each record type, `view(record, trace, kg)` draws a stage holding such records
    (or a list of them), None when another view already shows them; `kg` is the run's KG or None.
    `evidence`: in a trace with records of that type, `view(record, trace, kg)` draws the evidence
    instead of the generic evidence graph, None when a stage view already shows it."""

    views: Mapping[type, View | None]
    evidence: Mapping[type, EvidenceView | None] = field(default_factory=dict)

    def __or__(self, other: ViewTable) -> ViewTable:
        """This table with `other`'s entries over it."""
        return ViewTable({**self.views, **other.views}, {**self.evidence, **other.evidence})
