"""Evidence as a graph (pyvis): the generic evidence graph of any method's triples, and the graph of
triples with scored and pruned edges that the method views build on. A large one opens on what
matters (`focus`), the rest a click away. Given the KG, each links to it (`kg_links`): degrees on
hover, neighbours on click."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import ParamSpec

from kgviz.kg.graph import KnowledgeGraph
from kgviz.trace import StringTriple
from kgviz.viz.focus import opening_triples
from kgviz.viz.graph_data import Neighbourhood, VisEdge, VisNode
from kgviz.viz.kg_links import link_to_kg
from kgviz.viz.marks import Marks
from kgviz.viz.network import legend, network_frame, with_legend
from kgviz.viz.palette import (
    ANSWER,
    CITED,
    EVIDENCE,
    TOPIC,
    TRIPLE,
    UNUSED,
    score_colour,
    score_key,
)

ROOT_STYLE = {"shape": "box", "color": TOPIC, "font": {"color": "#ffffff"}}  # topics, centres


@dataclass(frozen=True)
class EdgeMark:
    """A class of triples drawn apart (e.g. "only in A", "the answer changes without it"):
    its legend label and colour; the edges are drawn thick in it, the label on hover."""

    label: str
    colour: str


P = ParamSpec("P")
CITED_MARK = EdgeMark("cited: a committed answer rests on it", CITED)


def evidence_parts(
    triples: Iterable[StringTriple],
    highlight: Iterable[str] = (),
    scores: Mapping[str, float] | None = None,
    triple_scores: Mapping[StringTriple, float] | None = None,
    marks: Marks | None = None,
    kg: KnowledgeGraph | None = None,
    edge_marks: Mapping[StringTriple, EdgeMark] | None = None,
    score_label: str = "triple score",
) -> GraphParts | None:
    """The graph of `triples` before it is drawn (None without triples; `evidence_graph` draws
    it): `highlight` names (e.g. answers) in red; with `scores` (entity name -> probability,
    e.g. a GNN's), node size grows with the score shown on hover; with `triple_scores` (e.g. a
    retriever's; `score_label` names them in the legend), edges take their score's colour and
    width (and a score filter); gold answers and topic entities in `marks` get their border;
    with `kg`, entities link to it (`kg_links`); a triple in `edge_marks` is drawn in its
    mark."""
    marked = set(highlight)
    triples = list(triples)
    key = [("answer", ANSWER), ("evidence entity", EVIDENCE)]
    edge_marks = edge_marks or {}
    if triple_scores:
        key += score_key(score_label)
    elif any(triple not in edge_marks for triple in triples):  # some drawn plain
        cited = CITED_MARK in edge_marks.values()
        key.append(("consulted triple" if cited else "triple", TRIPLE))
    return triples_parts(
        triples,
        lambda name: _entity_node(
            name, name in marked, None if scores is None else scores.get(name)
        ),
        key,
        scores=triple_scores,
        marks=marks,
        kg=kg,
        ends=marked,
        edge_marks=edge_marks,
    )


def drawing(parts: Callable[P, GraphParts | None]) -> Callable[P, str]:
    """A function that draws what `parts` builds (`drawn`), taking its arguments."""

    def draw(*args: P.args, **kwargs: P.kwargs) -> str:
        return drawn(parts(*args, **kwargs))

    return draw


evidence_graph = drawing(evidence_parts)  # HTML: `evidence_parts`, drawn


@dataclass(frozen=True)
class GraphParts:
    """A graph of triples ready to draw: its nodes and edges (`network_frame`'s), legend items,
    the note under the legend (counts), roots, KG neighbourhoods and marks."""

    nodes: list[VisNode]
    edges: list[VisEdge]
    key: list[tuple[str, str]]
    note: str
    roots: list[str]
    neighbourhoods: dict[str, Neighbourhood]
    marks: Marks

    def html(self) -> str:
        """The legend with the note, above the graph."""
        graph = with_legend(
            network_frame(
                self.nodes,
                self.edges,
                marks=self.marks,
                neighbourhoods=self.neighbourhoods,
                roots=self.roots,
            )
        )
        return legend(self.key, note=self.note) + graph


NO_EVIDENCE = '<p style="font:13px sans-serif">No evidence triples.</p>'


def drawn(parts: GraphParts | None) -> str:
    """HTML of a graph of triples (`GraphParts.html`), or a line saying there are none."""
    return parts.html() if parts is not None else NO_EVIDENCE


def triples_parts(
    triples: Iterable[StringTriple],
    node: Callable[[str], VisNode],
    key: Iterable[tuple[str, str]],
    note: str = "",
    scores: Mapping[StringTriple, float] | None = None,
    marks: Marks | None = None,
    kg: KnowledgeGraph | None = None,
    ends: Collection[str] = (),
    edge_marks: Mapping[StringTriple, EdgeMark] | None = None,
) -> GraphParts | None:
    """The graph of `triples` (duplicates dropped) whose entities `node(name)` draws, in layers
    from the topic entities in `marks` (or the nodes' own levels), under the legend `key` with
    the triple and entity counts and `note` (None without triples). An edge with a score in
    `scores` takes its colour and width (hover: the score; a slider filters by it). A large graph
    opens on the paths from the topic entities to `ends` and gold answers, then the best-scored
    triples. With `kg`, entities link to it (`kg_links`). A triple in `edge_marks` is drawn in
    its mark (and the marks join the legend)."""
    marks = marks or Marks()
    edge_marks = edge_marks or {}
    triples = list(dict.fromkeys(triples))
    if not triples:
        return None
    names = list(dict.fromkeys(name for head, _, tail in triples for name in (head, tail)))
    roots = [name for name in names if marks.is_topic(name)]
    targets = [*ends, *(name for name in names if marks.is_gold(name))]
    first = opening_triples(triples, roots, targets, scores)
    edges = [
        triple_edge(
            triple,
            None if scores is None else scores.get(triple),
            opening=triple in first,
            mark=edge_marks.get(triple),
        )
        for triple in triples
    ]
    shown_marks = dict.fromkeys(edge_marks[t] for t in triples if t in edge_marks)
    key = [*key, *((mark.label, mark.colour) for mark in shown_marks)]
    counts = f"{len(triples)} triples, {len(names)} entities" + opening_note(
        len(first), len(triples)
    )
    nodes, neighbourhoods = link_to_kg([node(name) for name in names], kg)
    return GraphParts(
        nodes,
        edges,
        key,
        f"{counts}; {note}" if note else counts,
        roots,
        neighbourhoods,
        marks,
    )


def opening_note(first: int, total: int) -> str:
    """` (the graph opens on 15 of them: "show all" above it shows the rest)`, or '' when
    `first` is all `total`."""
    if first == total:
        return ""
    return f' (the graph opens on {first} of them: "show all" above it shows the rest)'


def triple_edge(
    triple: StringTriple,
    score: float | None,
    pruned: bool = False,
    opening: bool = True,
    node_id: Callable[[str], str] = str,
    mark: EdgeMark | None = None,
) -> VisEdge:
    """A triple's edge between the nodes `node_id(head)` and `node_id(tail)`: in its score's colour
    and width when it has one, light and dashed when `pruned`, thick in its `mark`'s colour when
    marked; hover: the triple, score and mark."""
    head, relation, tail = triple
    title = f"{head} —{relation}→ {tail}" + ("" if score is None else f"\nscore {score:.3f}")
    ends = node_id(head), node_id(tail)
    if mark is not None:
        style = {"color": mark.colour, "width": 4}
        return VisEdge(*ends, relation, f"{title}\n{mark.label}", style, score, opening)
    if pruned:
        style = {"color": UNUSED, "dashes": True, "width": 1, "font": {"color": "#9e9e9e"}}
        return VisEdge(*ends, relation, title + "\npruned", style, score, opening)
    if score is None:
        return VisEdge(*ends, relation, title, {"color": TRIPLE}, None, opening)
    style = {"color": score_colour(score), "width": 1 + 4 * score}
    return VisEdge(*ends, relation, title, style, score, opening)


def node_size(score: float | None) -> float:
    """A node's size: growing with its score in [0, 1], a middle size without one."""
    return 12 if score is None else 8 + 30 * max(0.0, min(1.0, score))


def _entity_node(name: str, is_answer: bool, score: float | None) -> VisNode:
    style = {"color": ANSWER if is_answer else EVIDENCE, "size": node_size(score)}
    title = name if score is None else f"{name}\nscore {score:.3f}"
    return VisNode(name, name, title, style)
