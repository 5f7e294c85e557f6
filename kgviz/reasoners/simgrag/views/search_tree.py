"""The SimGRAG search tree as an icicle: a row per searched component, a column per depth headed by
the pattern triple that depth binds, and a box per recorded step, coloured by its outcome and as
tall as the leaves below it. A run of sibling steps that found no candidate is one box that says
why; a pruned box gives its bound and the k-th best GSD it lost against; a gold answer's box is
starred and outlined in gold.

Drag across a tree to zoom into its rows (double-click resets): a label too small to read is
hidden until its box is tall enough, and every box gives its full text on hover. The slider below
replays the search step by step, in the order it made its records. The boxes are plotly bars,
which stay responsive with thousands of records.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import plotly.graph_objects as go

from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.simgrag.query_pattern import QueryPattern
from kgviz.reasoners.simgrag.records import ComponentSearch, SearchRecord
from kgviz.reasoners.simgrag.search_tree import SearchTree
from kgviz.reasoners.simgrag.views.tree_boxes import (
    Box,
    boxes,
    dead_end,
    entity_name,
    names_known,
    rows,
    triple_name,
)
from kgviz.viz.escape import plotly_text
from kgviz.viz.marks import GOLD, STAR, Marks

OUTCOMES = {  # outcome: (legend text, colour)
    "expanded": ("expanded", "#9ecae1"),
    "no_candidate": ("no candidate", "#bdbdbd"),
    "pruned_bound": ("pruned by bound", "#fd8d3c"),
    "completed": ("completed", "#74c476"),
    "in_topk": ("in top-k", "#006d2c"),
}
LEAF_PX = 20  # a leaf box fits a line of text
MIN_TREE_PX = 120
MAX_TREE_PX = 2400  # a larger tree shares this height: zoom in to read its thinner boxes
TITLE_PX = 60
LINE_PX = 22  # a line of a component's text (2 or 3 lines, then a gap)
HEADER_PX = 70  # the depth headers (four lines)
FRAME_CHARS = 124  # label characters across an 850 px frame, shared by a tree's depth columns
MIN_NAME_CHARS = 8  # a pruned box's entity keeps this much of its name beside its bound
HEADER_CHARS = 28  # characters per pattern element in a depth header
TEXT_SIZE = 12
MIN_TEXT_SIZE = 11  # a label that would be smaller is hidden
NOT_RECORDED = "The search tree was not recorded (run with record_tree=True)."
STEPS = 10  # the slider replays the search in this many steps
HIDDEN = 0.08  # the opacity of a record the replay has not reached
SLIDER_PX = 90
FOLDED_NAMES = 8  # entities a folded box names on hover


@dataclass(frozen=True)
class Tally:
    """Every count the view shows, over the drawn records: records per outcome, the candidates
    the pruned records stand for, and the records drawn and recorded (drawn plus dropped by the
    cap)."""

    records: dict[str, int]
    pruned: int
    drawn: int
    recorded: int


def tally(trees: Iterable[SearchTree]) -> Tally:
    """The counts of `trees` together."""
    records = dict.fromkeys(OUTCOMES, 0)
    pruned = drawn = recorded = 0
    for tree in trees:
        for outcome, count in zip(tree.outcome, tree.count):
            records[outcome] += 1
            pruned += count if outcome == "pruned_bound" else 0
        drawn += len(tree)
        recorded += len(tree) + tree.dropped
    return Tally(records, pruned, drawn, recorded)


@dataclass(frozen=True)
class TreeContext:
    """What a tree's labels and hovers read: its component, the pattern, the KG's names, the
    gold marks and the k the search kept."""

    part: ComponentSearch
    pattern: QueryPattern
    kg: KnowledgeGraph | None
    marks: Marks
    k: int


def search_tree_figure(
    search: SearchRecord,
    pattern: QueryPattern,
    kg: KnowledgeGraph | None = None,
    marks: Marks | None = None,
) -> go.Figure:
    """The recorded search tree of each component; entity and triple names (and so gold marks
    of `marks`) come from the tree, or from `kg` for a tree saved before it kept them."""
    marks = marks or Marks()
    figure = go.Figure()
    rows = [(p, _component_line(p, pattern), _tree_px(p.tree)) for p in search.components]
    empty = not any(px for *_, px in rows)
    total = sum(_text_px(text) + (HEADER_PX + px if px else 0) for _, text, px in rows)
    total += empty * 2 * LINE_PX
    top = drawn = 0
    for part, text, px in rows:
        top += _text_px(text)
        figure.add_annotation(
            text=text,
            x=0,
            y=1 - top / total,
            xref="paper",
            yref="paper",
            xanchor="left",
            yanchor="bottom",
            align="left",
            showarrow=False,
        )
        if part.tree is not None and px:
            top += HEADER_PX
            drawn += 1
            domain = [1 - (top + px) / total, 1 - top / total]
            context = TreeContext(part, pattern, kg, marks, search.width)
            _add_tree(figure, part.tree, context, str(drawn) if drawn > 1 else "", domain)
            top += px
    if empty:
        figure.add_annotation(
            text=NOT_RECORDED,
            x=0,
            y=0,
            xref="paper",
            yref="paper",
            xanchor="left",
            yanchor="bottom",
            showarrow=False,
        )
        figure.update_layout(xaxis={"visible": False}, yaxis={"visible": False})
    steps = _step_slider(
        [boxes(p.tree) for p in search.components if p.tree is not None and len(p.tree)]
    )
    figure.update_layout(
        title={
            "text": _title(search, _gold_note(search, kg, marks)),
            "x": 0.01,
            "xanchor": "left",
            "font": {"size": 13},
        },
        margin={"l": 5, "r": 5, "t": TITLE_PX, "b": SLIDER_PX if steps else 5},
        height=TITLE_PX + total + (SLIDER_PX if steps else 5),
        uniformtext={"minsize": MIN_TEXT_SIZE, "mode": "hide"},
        plot_bgcolor="#ffffff",
        sliders=steps,
    )
    return figure


def _text_px(text: str) -> int:
    """The height of a component's lines of text, with a gap above them."""
    return LINE_PX * (text.count("<br>") + 2)


def _step_slider(trees: list[list[Box]]) -> list[dict[str, Any]]:
    """A slider that replays the search: at step s only the boxes of the first s/STEPS of the
    records (in the order the search made them, component after component) are opaque."""
    total = sum(box.records[-1] + 1 for tree in trees for box in tree[-1:])
    if total < 2:
        return []
    count = min(STEPS, total)  # no two steps show the same number of records
    steps = []
    for step in range(1, count + 1):
        shown = math.ceil(total * step / count)
        opacities, before = [], 0
        for tree in trees:
            opacities.append([1.0 if before + box.first < shown else HIDDEN for box in tree])
            before += tree[-1].records[-1] + 1
        steps.append(
            {
                "label": f"{shown}",
                "method": "restyle",
                "args": [{"marker.opacity": opacities}],
            }
        )
    return [
        {
            "active": count - 1,
            "steps": steps,
            "currentvalue": {"prefix": "search steps shown: "},
            "pad": {"t": 10},
            "len": 1.0,
        }
    ]


def _tree_px(tree: SearchTree | None) -> int:
    """The height of a tree's boxes: a line per leaf, within bounds (0 if nothing is drawn)."""
    if tree is None or not len(tree):
        return 0
    leaves = rows(boxes(tree))[2]
    return min(max(LEAF_PX * leaves, MIN_TREE_PX), MAX_TREE_PX)


def _add_tree(
    figure: go.Figure, tree: SearchTree, context: TreeContext, axis: str, domain: list[float]
) -> None:
    """Draw `tree` as bars on axes `x{axis}`/`y{axis}` in the vertical `domain`, a column per
    depth, headed by what it binds."""
    drawn = boxes(tree)
    first, span, leaves = rows(drawn)
    headers = _depth_headers(tree, context.part, context.pattern)
    chars = max(12, FRAME_CHARS // len(headers))
    gold = [_is_gold(tree, box, context) for box in drawn]
    figure.add_trace(
        go.Bar(
            orientation="h",
            base=[tree.depth[box.first] for box in drawn],
            x=[1] * len(drawn),
            y=[row + size / 2 for row, size in zip(first, span)],
            width=span,
            text=[_label(tree, box, context, chars) for box in drawn],
            hovertext=[_hover(tree, box, context) for box in drawn],
            hoverinfo="text",
            marker={
                "color": [OUTCOMES[tree.outcome[box.first]][1] for box in drawn],
                "line": {
                    "width": [3 if is_gold else 0.5 for is_gold in gold],
                    "color": [GOLD if is_gold else "#ffffff" for is_gold in gold],
                },
            },
            textposition="inside",
            insidetextanchor="start",
            textangle=0,
            textfont={"size": TEXT_SIZE},
            showlegend=False,
            xaxis=f"x{axis}",
            yaxis=f"y{axis}",
        )
    )
    figure.update_layout(
        {
            f"xaxis{axis}": {
                "anchor": f"y{axis}",
                "range": [0, len(headers)],
                "tickvals": [depth + 0.5 for depth in range(len(headers))],
                "ticktext": headers,
                "side": "top",
                "tickangle": 0,
                "fixedrange": True,
                "showgrid": False,
                "zeroline": False,
                "tickfont": {"size": 11},
            },
            f"yaxis{axis}": {
                "anchor": f"x{axis}",
                "domain": domain,
                "range": [leaves, 0],
                "visible": False,
            },
        }
    )


def _depth_headers(tree: SearchTree, part: ComponentSearch, pattern: QueryPattern) -> list[str]:
    """Per depth, the pattern element it binds, read off its first record (the records at depth
    `d` all match the `d`-th step of the search order)."""
    first: dict[int, int] = {}
    for record, depth in enumerate(tree.depth):
        first.setdefault(depth, record)
    headers = []
    for depth, record in sorted(first.items()):
        edge = tree.pattern_edge[record]
        node = part.pattern_nodes[tree.pattern_node[record]]
        headers.append(
            _depth_header(depth, part.pattern_edges[edge] if edge >= 0 else -1, node, pattern)
        )
    return headers


def _depth_header(depth: int, edge: int, node: int, pattern: QueryPattern) -> str:
    """`depth d` above `(head, relation, tail)` on three lines, the node its boxes map in bold."""

    def name(index: int) -> str:
        text = plotly_text(pattern.nodes[index].text, HEADER_CHARS)
        return f"<b>{text}</b>" if index == node else text

    if edge < 0:
        return f"depth {depth}<br>start: {name(node)}"
    triple = pattern.edges[edge]
    relation = plotly_text(triple.relation, HEADER_CHARS)
    return f"depth {depth}<br>({name(triple.head)},<br>{relation},<br>{name(triple.tail)})"


def _title(search: SearchRecord, gold: str) -> str:
    """The algorithm and what is drawn, then the outcome key with its counts and the gold note."""
    head = f"Search tree ({plotly_text(search.algorithm)})"
    trees = [part.tree for part in search.components if part.tree is not None]
    if not trees:
        return head
    counts = tally(trees)
    key = "  ".join(
        f'<span style="color:{OUTCOMES[outcome][1]}">■</span> {text}'
        for outcome, text in _outcome_texts(counts)
    )
    return f"{head}: {_drawn(counts)}<br>{key}{gold}"


def _gold_note(search: SearchRecord, kg: KnowledgeGraph | None, marks: Marks) -> str:
    """The gold key and how many boxes reach a gold answer, or that none does ('' without gold
    answers or names)."""
    trees = [p.tree for p in search.components if p.tree is not None and names_known(p.tree, kg)]
    if not marks.gold or not trees:
        return ""
    reached = sum(
        marks.is_gold(entity_name(tree, record, kg))
        for tree in trees
        for record in range(len(tree))
    )
    if not reached:
        return "  ·  no drawn step reaches a gold answer"
    return (
        f'  ·  <span style="color:{GOLD}">{STAR.strip()}</span> gold answer '
        f"(gold outline): {reached} step(s)"
    )


def _component_line(part: ComponentSearch, pattern: QueryPattern) -> str:
    """How the search of a component went, the counts of its drawn tree, and where steps found
    no candidate."""
    text = (
        f"<b>component {part.component}</b>: {part.status.replace('_', ' ')} in "
        f"{part.elapsed_s * 1000:.0f} ms, {part.matches} match(es)"
    )
    if part.tree is None:
        return (
            f"{text}, {part.expanded:,} partial mappings visited, {part.pruned:,} pruned by "
            "bound; tree not recorded"
        )
    counts = tally([part.tree])
    outcomes = ", ".join(text for _, text in _outcome_texts(counts))
    stopped = _stopped_at(part.tree, part, pattern) if part.status != "complete" else ""
    return (
        f"{text}; {_drawn(counts)}{stopped}<br>{outcomes}{_failed_steps(part.tree, part, pattern)}"
    )


def _stopped_at(tree: SearchTree, part: ComponentSearch, pattern: QueryPattern) -> str:
    """Where a search its budget or time limit stopped was: the depth of its last recorded
    step, out of the pattern's, and the pattern triple that step matched."""
    if not tree.depth:
        return ""
    depth = tree.depth[-1]
    step = tree.step(depth) if depth else None
    matching = f", matching {_triple_text(pattern, part.pattern_edges[step[0]])}" if step else ""
    return (
        f"; it stopped at step {depth} of {len(part.pattern_edges)}{matching}, after "
        f"{part.expanded:,} partial mappings"
    )


def _failed_steps(tree: SearchTree, part: ComponentSearch, pattern: QueryPattern) -> str:
    """`<br>525 found no candidate for (a, r, b); …`, per pattern triple the dead ends failed
    ('' without dead ends, or a search order)."""
    failed = Counter(
        tree.step(depth + 1)
        for depth, outcome in zip(tree.depth, tree.outcome)
        if outcome == "no_candidate"
    )
    notes = [
        f"{count:,} found no candidate for {_triple_text(pattern, part.pattern_edges[step[0]])}"
        for step, count in failed.most_common()
        if step is not None
    ]
    return "<br>" + "; ".join(notes) if notes else ""


def _triple_text(pattern: QueryPattern, edge: int) -> str:
    head, relation, tail = pattern.triples()[edge]
    return plotly_text(f"({head}, {relation}, {tail})")


def _drawn(counts: Tally) -> str:
    if counts.drawn == counts.recorded:
        return f"{counts.drawn:,} records drawn"
    return f"{counts.drawn:,} of {counts.recorded:,} records drawn (capped by max_tree_nodes)"


def _outcome_texts(counts: Tally) -> list[tuple[str, str]]:
    """`(outcome, "<records> <outcome text>")`, the pruned ones with the candidates they cut."""
    texts = []
    for outcome, (text, _) in OUTCOMES.items():
        line = f"{counts.records[outcome]:,} {text}"
        if outcome == "pruned_bound":
            line += f" ({counts.pruned:,} candidates)"
        texts.append((outcome, line))
    return texts


def _gold_record(tree: SearchTree, record: int, context: TreeContext) -> bool:
    """Whether `record` maps a gold answer (known by name)."""
    kg = context.kg
    return names_known(tree, kg) and context.marks.is_gold(entity_name(tree, record, kg))


def _starred(tree: SearchTree, record: int, context: TreeContext, chars: int | None = None) -> str:
    """The entity of `record` as plotly text (cut to `chars`), starred when it is gold."""
    name = plotly_text(entity_name(tree, record, context.kg), chars)
    return STAR + name if _gold_record(tree, record, context) else name


def _is_gold(tree: SearchTree, box: Box, context: TreeContext) -> bool:
    return any(_gold_record(tree, record, context) for record in box.records)


def _label(tree: SearchTree, box: Box, context: TreeContext, chars: int) -> str:
    """A box's text: its entity (starred if gold), a pruned one with its bound against the k-th
    best, a folded run with its size and why it found no candidate."""
    record = box.first
    if len(box.records) > 1:
        why = dead_end(tree, box, context.part, context.pattern, context.kg)
        text = f"✗ {len(box.records)}: {why[0]}" if why else f"✗ {len(box.records)} no candidate"
        return plotly_text(text, chars)
    if tree.outcome[record] != "pruned_bound":
        return _starred(tree, record, context, chars)
    more = f" +{tree.count[record] - 1}" if tree.count[record] > 1 else ""
    kth = tree.kth_of(record)
    against = ""
    if kth is not None:
        bound, best = apart(tree.bound[record], kth)
        against = f" · {bound} > {best}"
    # the name gives way, so that the whole label fits its column and is not hidden
    name_chars = max(MIN_NAME_CHARS, chars - len(f"✂ {more}{against}"))
    label = _starred(tree, record, context, name_chars)
    return f"✂ {label}{more}{against.replace('>', '&gt;')}"


def apart(a: float, b: float) -> tuple[str, str]:
    """`a` and `b` with 3 decimals, or as many more (up to 9) as it takes to tell them apart."""
    for digits in range(3, 10):
        shown = f"{a:.{digits}f}", f"{b:.{digits}f}"
        if shown[0] != shown[1]:
            return shown
    return f"{a:.3e}", f"{b:.3e}"


def _hover(tree: SearchTree, box: Box, context: TreeContext) -> str:
    """Everything about a box: the entity (entities of a folded run), outcome, the pattern
    element and triple it maps, its GSD and bound, and why it was pruned or found nothing."""
    record, part, pattern, kg = box.first, context.part, context.pattern, context.kg
    node = part.pattern_nodes[tree.pattern_node[record]]
    if len(box.records) > 1:
        names = [_starred(tree, record, context) for record in box.records]
        shown = ", ".join(names[:FOLDED_NAMES])
        more = f" and {len(names) - FOLDED_NAMES:,} more" if len(names) > FOLDED_NAMES else ""
        lines = [f"<b>{len(names):,} steps that found no candidate</b>", f"{shown}{more}"]
    else:
        lines = [f"<b>{_starred(tree, record, context)}</b>"]
    lines.append(f"{OUTCOMES[tree.outcome[record]][0]}, depth {tree.depth[record]}")
    if tree.pattern_edge[record] < 0:
        lines.append(f"start: pattern node {node} ({plotly_text(pattern.nodes[node].text)})")
    else:
        edge = part.pattern_edges[tree.pattern_edge[record]]
        lines.append(
            f"pattern edge {edge} ({plotly_text(pattern.edges[edge].relation)}) "
            f"→ node {node} ({plotly_text(pattern.nodes[node].text)})"
        )
        if len(box.records) == 1 and (triple := triple_name(tree, record, kg)) is not None:
            lines.append("triple: " + plotly_text(", ".join(triple)))
    lines.append(f"partial GSD {tree.partial_gsd[record]:.3f}, bound {tree.bound[record]:.3f}")
    lines.extend(_verdict(tree, box, context))
    return "<br>".join(lines)


def _verdict(tree: SearchTree, box: Box, context: TreeContext) -> list[str]:
    """Why a pruned box was cut (with its costlier siblings), or a dead end found nothing."""
    record = box.first
    if tree.outcome[record] == "no_candidate":
        why = dead_end(tree, box, context.part, context.pattern, context.kg)
        return [f"no candidate: {plotly_text(why[1])}"] if why else []
    if tree.outcome[record] != "pruned_bound":
        return []
    lines = []
    kth = tree.kth_of(record)
    if kth is not None:
        bound, best = apart(tree.bound[record], kth)
        lines.append(
            f"pruned: bound {bound} &gt; {best}, the k-th best GSD found by then "
            f"(k = {context.k}), so no completion could enter the top k"
        )
    if tree.count[record] > 1:
        lines.append(f"pruned with {tree.count[record] - 1:,} costlier sibling(s)")
    return lines
