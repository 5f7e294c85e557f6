"""How ToG's walk is drawn: the beam depth by depth (the walk view, kept paths first, the pruned
rest a click away); its final paths are the run's evidence, drawn by the shared evidence graph
with the gold answers marked."""

from __future__ import annotations

from kgviz.reasoners.tog.records import Walk
from kgviz.reasoners.tog.views.walk import walk_html
from kgviz.viz.view_table import ViewTable

VIEWS = ViewTable(views={Walk: lambda record, trace, kg: walk_html(record, trace.gold)})
