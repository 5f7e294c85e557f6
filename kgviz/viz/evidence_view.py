"""Evidence as a graph (pyvis): the generic evidence graph of any method's triples, and the graph of
triples with scored and pruned edges that the method views build on. Given the KG, each links to
it (`kg_links`): degrees on hover, neighbours on click."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping

from kgviz.kg.graph import KnowledgeGraph
from kgviz.trace import StringTriple
from kgviz.viz.kg_links import link_to_kg
from kgviz.viz.marks import Marks
from kgviz.viz.network import GRAPH_HEIGHT, VisEdge, VisNode, legend, network_html
from kgviz.viz.palette import (
    ANSWER,
    EVIDENCE,
    TOPIC,
    UNUSED,
    score_colour,
    score_key,
)

ROOT_STYLE = {"shape": "box", "color": TOPIC, "font": {"color": "#ffffff"}}  # topics, centres


def evidence_graph(
    triples: Iterable[StringTriple],
    highlight: Iterable[str] = (),
    scores: Mapping[str, float] | None = None,
    height: int = GRAPH_HEIGHT,
    triple_scores: Mapping[StringTriple, float] | None = None,
    marks: Marks | None = None,
    kg: KnowledgeGraph | None = None,
) -> str:
    """HTML: the graph of `triples`, `highlight` names (e.g. answers) in red; with `scores`
    (entity name -> probability, e.g. a GNN's), node size grows with the score shown on hover;
    with `triple_scores` (e.g. a retriever's), edges take their score's colour and width (and a
    score filter); gold answers and topic entities in `marks` get their border; with `kg`,
    entities link to it (`kg_links`)."""
    marked = set(highlight)
    key = [("answer", ANSWER), ("evidence entity", EVIDENCE)]
    return triples_graph(
        triples,
        lambda name: _entity_node(
            name, name in marked, None if scores is None else scores.get(name)
        ),
        key + (score_key("triple score") if triple_scores else []),
        scores=triple_scores,
        height=height,
        marks=marks,
        kg=kg,
    )


def triples_graph(
    triples: Iterable[StringTriple],
    node: Callable[[str], VisNode],
    key: Iterable[tuple[str, str]],
    note: str = "",
    scores: Mapping[StringTriple, float] | None = None,
    pruned: Collection[StringTriple] = (),
    height: int = GRAPH_HEIGHT,
    marks: Marks | None = None,
    layered: bool = False,
    kg: KnowledgeGraph | None = None,
) -> str:
    """HTML: the legend `key` with the triple and entity counts and `note`, above the graph of
    `triples` (duplicates dropped) whose entities `node(name)` draws. An edge with a score in
    `scores` takes its colour and width (hover: the score; a slider filters by it); a `pruned`
    one is light and dashed. `layered` lays the graph out left to right (nodes may give their
    `level`). With `kg`, entities link to it (`kg_links`)."""
    triples = list(dict.fromkeys(triples))
    if not triples:
        return '<p style="font:13px sans-serif">No evidence triples.</p>'
    names = dict.fromkeys(name for head, _, tail in triples for name in (head, tail))
    edges = [
        _triple_edge(triple, None if scores is None else scores.get(triple), triple in pruned)
        for triple in triples
    ]
    counts = f"{len(triples)} triples, {len(names)} entities"
    nodes, neighbourhoods = link_to_kg([node(name) for name in names], kg)
    return legend(key, note=f"{counts}; {note}" if note else counts) + network_html(
        nodes, edges, height, layered=layered, marks=marks, neighbourhoods=neighbourhoods
    )


def _triple_edge(triple: StringTriple, score: float | None, pruned: bool) -> VisEdge:
    head, relation, tail = triple
    title = f"{head} —{relation}→ {tail}" + ("" if score is None else f"\nscore {score:.3f}")
    if pruned:
        return VisEdge(
            head,
            tail,
            relation,
            title + "\npruned",
            {"color": UNUSED, "dashes": True, "width": 1, "font": {"color": UNUSED}},
            score,
        )
    style = {} if score is None else {"color": score_colour(score), "width": 1 + 4 * score}
    return VisEdge(head, tail, relation, title, style, score)


def node_size(score: float | None) -> float:
    """A node's size: growing with its score in [0, 1], a middle size without one."""
    return 12 if score is None else 8 + 30 * max(0.0, min(1.0, score))


def _entity_node(name: str, is_answer: bool, score: float | None) -> VisNode:
    style = {"color": ANSWER if is_answer else EVIDENCE, "size": node_size(score)}
    title = name if score is None else f"{name}\nscore {score:.3f}"
    return VisNode(name, name, title, style)
