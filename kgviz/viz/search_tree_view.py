"""The SimGRAG search tree as a plotly icicle: one box per recorded step, coloured by outcome.

Click a box to zoom into its subtree; the icicle stays responsive with thousands of records.
"""

from __future__ import annotations

import plotly.graph_objects as go

from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.simgrag.query_pattern import QueryPattern
from kgviz.reasoners.simgrag.records import ComponentSearch, SearchRecord
from kgviz.reasoners.simgrag.search_tree import SearchTree
from kgviz.viz.html import plotly_text

OUTCOMES = {  # outcome: (legend text, colour)
    "expanded": ("expanded", "#9ecae1"),
    "no_candidate": ("no candidate", "#bdbdbd"),
    "pruned_bound": ("pruned by bound", "#fd8d3c"),
    "completed": ("completed", "#74c476"),
    "in_topk": ("in top-k", "#006d2c"),
}
ROOT_COLOUR = "#ffffff"
LABEL_CHARS = 30


def search_tree_figure(
    search: SearchRecord, pattern: QueryPattern, kg: KnowledgeGraph | None = None
) -> go.Figure:
    """The icicle of every recorded component tree; entity and triple names need `kg`."""
    ids: list[str] = []
    parents: list[str] = []
    labels: list[str] = []
    colours: list[str] = []
    hovers: list[str] = []
    for part in search.components:
        if part.tree is None:
            continue
        root = f"c{part.component}"
        ids.append(root)
        parents.append("")
        labels.append(f"component {part.component}")
        colours.append(ROOT_COLOUR)
        hovers.append(plotly_text(component_summary(part)))
        tree = part.tree
        for record in range(len(tree)):
            ids.append(f"{root}:{record}")
            parent = tree.parent[record]
            parents.append(root if parent < 0 else f"{root}:{parent}")
            labels.append(_label(tree, record, kg))
            colours.append(OUTCOMES[tree.outcome[record]][1])
            hovers.append(_hover(tree, record, part, pattern, kg))
    figure = go.Figure(
        go.Icicle(
            ids=ids,
            parents=parents,
            labels=labels,
            hovertext=hovers,
            hoverinfo="text",
            marker={"colors": colours, "line": {"width": 0.5, "color": "#ffffff"}},
            textinfo="label",
            root={"color": ROOT_COLOUR},
            leaf={"opacity": 1.0},
        )
    )
    figure.update_layout(
        title={"text": _title(search), "font": {"size": 13}},
        margin={"l": 5, "r": 5, "t": 90, "b": 5},
        height=560,
    )
    if not ids:
        figure.add_annotation(
            text="The search tree was not recorded (run with record_tree=True).",
            showarrow=False,
            x=0.5,
            y=0.5,
            xref="paper",
            yref="paper",
        )
    return figure


def component_summary(part: ComponentSearch) -> str:
    """One line: status, expanded and pruned counts, matches, recorded and dropped records."""
    text = (
        f"component {part.component}: {part.status.replace('_', ' ')}, "
        f"{part.expanded:,} expanded, {part.pruned:,} pruned by bound, {part.matches} "
        f"match(es), {part.elapsed_s * 1000:.0f} ms"
    )
    if part.tree is not None:
        text += f"; {len(part.tree):,} records shown, {part.tree.dropped:,} dropped by the cap"
    return text


def _title(search: SearchRecord) -> str:
    counts: dict[str, int] = {}
    for part in search.components:
        for outcome in part.tree.outcome if part.tree is not None else ():
            counts[outcome] = counts.get(outcome, 0) + 1
    key = "  ".join(
        f'<span style="color:{colour}">■</span> {text} {counts.get(outcome, 0):,}'
        for outcome, (text, colour) in OUTCOMES.items()
    )
    lines = [plotly_text(component_summary(part)) for part in search.components]
    return "<br>".join([f"Search tree ({plotly_text(search.algorithm)})", *lines, key])


def _entity(kg: KnowledgeGraph | None, entity: int) -> str:
    return kg.entities[entity] if kg is not None else f"entity {entity}"


def _label(tree: SearchTree, record: int, kg: KnowledgeGraph | None) -> str:
    name = plotly_text(_entity(kg, tree.entity[record]), LABEL_CHARS)
    if tree.outcome[record] == "pruned_bound":
        return f"✂ {name} +{tree.count[record] - 1}" if tree.count[record] > 1 else f"✂ {name}"
    return name


def _hover(
    tree: SearchTree,
    record: int,
    part: ComponentSearch,
    pattern: QueryPattern,
    kg: KnowledgeGraph | None,
) -> str:
    node = part.pattern_nodes[tree.pattern_node[record]]
    lines = [
        f"<b>{plotly_text(_entity(kg, tree.entity[record]))}</b>",
        f"{OUTCOMES[tree.outcome[record]][0]}, depth {tree.depth[record]}",
    ]
    if tree.pattern_edge[record] < 0:
        lines.append(f"start: pattern node {node} ({plotly_text(pattern.nodes[node].text)})")
    else:
        edge = part.pattern_edges[tree.pattern_edge[record]]
        lines.append(
            f"pattern edge {edge} ({plotly_text(pattern.edges[edge].relation)}) "
            f"→ node {node} ({plotly_text(pattern.nodes[node].text)})"
        )
        if kg is not None:
            lines.append("triple: " + plotly_text(", ".join(kg.triple_names(tree.triple[record]))))
    lines.append(f"partial GSD {tree.partial_gsd[record]:.3f}, bound {tree.bound[record]:.3f}")
    if tree.count[record] > 1:
        lines.append(f"pruned with {tree.count[record] - 1:,} costlier sibling(s)")
    return "<br>".join(lines)
