"""How KAPING's stage is drawn: every candidate triple by similarity, the kept ones marked."""

from __future__ import annotations

from kgviz.reasoners.kaping.records import TripleRanking
from kgviz.reasoners.kaping.views.triple_ranking import triple_ranking_figure
from kgviz.viz.view_table import ViewTable

VIEWS = ViewTable(views={TripleRanking: lambda record, trace, kg: triple_ranking_figure(record)})
