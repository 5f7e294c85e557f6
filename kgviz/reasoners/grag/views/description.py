"""GRAG: the pruned ego-graphs the LLM is given, each in its own section (the best one open) with
its soft-pruned edges faded, and their hierarchical descriptions as the prompt holds them."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.grag.records import Description, GatedEdge, GatedNode, PrunedEgoGraph
from kgviz.trace import StringTriple
from kgviz.viz.escape import esc
from kgviz.viz.evidence_view import ROOT_STYLE, node_size, opening_note, triple_edge
from kgviz.viz.focus import opening_triples
from kgviz.viz.graph_data import Neighbourhood, Section, VisEdge, VisNode, prefixed
from kgviz.viz.kg_links import link_to_kg
from kgviz.viz.marks import Marks
from kgviz.viz.network import legend, network_frame, with_legend
from kgviz.viz.palette import ANSWER, TOPIC, UNUSED, score_colour, score_key
from kgviz.viz.prompt_view import PRE

MAX_PRUNED = 150  # soft-pruned edges drawn at most, the best-scoring first


def description_view(
    descriptions: Sequence[Description],
    pruned: Sequence[PrunedEgoGraph] | None = None,
    answers: Iterable[str] = (),
    max_pruned: int = MAX_PRUNED,
    marks: Marks | None = None,
    kg: KnowledgeGraph | None = None,
) -> str:
    """HTML: with `pruned` (question answering; the stance task prunes nothing), the graph of the
    ego-graphs that kept a triple (gold answers and topic entities in `marks` bordered; with
    `kg`, linked to it); then each description."""
    graph = pruned_graph(pruned, answers, max_pruned, marks, kg) if pruned else ""
    texts = "".join(
        f"<details open><summary>Graph {number}, around {esc(description.centre)}: "
        f'{description.triples} triple(s)</summary><pre style="{PRE}">{esc(description.text)}'
        f"</pre></details>"
        for number, description in enumerate(descriptions, 1)
    )
    key = (
        '<p style="color:#555">Each description is a tree grown from the graph\'s centre: '
        "<code>-</code> marks a tree edge (indented under the node it grows from), "
        "<code>+</code> an edge outside the tree (under its head node).</p>"
    )
    return f'{graph}<div style="font:13px sans-serif">{key}{texts}</div>'


def pruned_graph(
    pruned: Sequence[PrunedEgoGraph],
    answers: Iterable[str] = (),
    max_pruned: int = MAX_PRUNED,
    marks: Marks | None = None,
    kg: KnowledgeGraph | None = None,
) -> str:
    """HTML: the ego-graphs that kept a triple, a section each under a checkbox (the best-ranked
    one open, and the first holding an answer or gold answer): the centre as a dark box, entities
    in the colour and size of their gate (answers red), kept edges in the colour and width of
    their score, and the `max_pruned` best soft-pruned edges (of all graphs) faded; a large
    section opens on the paths from its centre to the answers and its best kept triples. A
    slider filters edges by score. With `kg`, entities link to it."""
    marks = marks or Marks()
    drawn = [(r, graph) for r, graph in enumerate(pruned, 1) if any(e.kept for e in graph.edges)]
    faded = sorted(
        {(e.head, e.relation, e.tail): e for _, g in drawn for e in g.edges if not e.kept}.values(),
        key=lambda edge: -edge.score,
    )
    shown_faded = {_triple(edge) for edge in faded[:max_pruned]}
    answered = set(answers)
    ends = answered | {n.name for _, g in drawn for n in g.nodes if marks.is_gold(n.name)}
    opened = _opened(drawn, ends)
    nodes: list[VisNode] = []
    edges: list[VisEdge] = []
    sections: list[Section] = []
    neighbourhoods: dict[str, Neighbourhood] = {}
    opening: set[StringTriple] = set()
    for rank, graph in drawn:
        key = f"e{rank}"
        kept = [_triple(e) for e in graph.edges if e.kept]
        first = opening_triples(kept, [graph.centre], ends, _scores(graph.edges))
        opening |= first if rank in opened else set()
        shown = [e for e in graph.edges if e.kept or _triple(e) in shown_faded]
        sections.append(
            Section(
                key,
                f"#{rank} {graph.centre}",
                f"ego-graph #{rank} around {graph.centre}: {len(kept)} described triple(s), "
                f"{len(shown) - len(kept)} soft-pruned drawn",
                rank in opened,
            )
        )
        gates = {node.name: node for node in graph.nodes}
        names = dict.fromkeys(name for e in shown for name in (e.head, e.tail))
        section_nodes = [
            _node(key, gates.get(name, GatedNode(name, 0.0, False)), rank, graph.centre, answered)
            for name in names
        ]
        linked, around = link_to_kg(section_nodes, kg, prefixed(key))
        nodes.extend(linked)
        neighbourhoods.update(around)
        edges.extend(
            triple_edge(
                _triple(e),
                e.score,
                pruned=not e.kept,
                opening=_triple(e) in first,
                node_id=prefixed(key),
            )
            for e in shown
        )
    key_items = [
        ("ego-graph centre", TOPIC),
        ("answer", ANSWER),
        *score_key("gate"),
        ("soft-pruned edge", UNUSED),
    ]
    return legend(key_items, note=_counts(pruned, drawn, faded, max_pruned, opening)) + (
        with_legend(
            network_frame(
                nodes,
                edges,
                marks=marks,
                neighbourhoods=neighbourhoods,
                roots=[prefixed(f"e{rank}")(graph.centre) for rank, graph in drawn],
                sections=sections,
            )
        )
    )


def _triple(edge: GatedEdge) -> StringTriple:
    return edge.head, edge.relation, edge.tail


def _scores(edges: Sequence[GatedEdge]) -> dict[StringTriple, float]:
    return {_triple(edge): edge.score for edge in edges}


def _opened(drawn: Sequence[tuple[int, PrunedEgoGraph]], ends: Collection[str]) -> set[int]:
    """The ranks of the sections open at first: the best-ranked, and the first with an end."""
    holding = [r for r, g in drawn if any(e.kept and {e.head, e.tail} & set(ends) for e in g.edges)]
    return {drawn[0][0], *holding[:1]} if drawn else set()


def _counts(
    pruned: Sequence[PrunedEgoGraph],
    drawn: Sequence[tuple[int, PrunedEgoGraph]],
    faded: Sequence[GatedEdge],
    max_pruned: int,
    opening: set[StringTriple],
) -> str:
    """What is drawn, what is left out, what the open sections show at first."""
    described = {_triple(e) for _, g in drawn for e in g.edges if e.kept}
    notes = [
        f"{len(described)} distinct triples described in {len(drawn)} ego-graph(s), and "
        f"{min(len(faded), max_pruned)} distinct soft-pruned ones drawn faded (a triple of two "
        "ego-graphs is an edge in each; the bar counts edges)"
        + opening_note(len(opening), len(described))
    ]
    if len(faded) > max_pruned:
        notes.append(f"{len(faded) - max_pruned} more soft-pruned triples not drawn")
    if len(drawn) < len(pruned):
        notes.append(f"{len(pruned) - len(drawn)} ego-graph(s) kept no edge")
    return "; ".join(notes)


def _node(key: str, node: GatedNode, rank: int, centre: str, answers: Collection[str]) -> VisNode:
    """An entity of the section `key` (ego-graph `rank`): its centre as a dark box, an answer in
    red, another in the colour and size of its gate."""
    verdict = "described" if node.kept else "in no described triple"
    title = f"{node.name}\ngate {node.gate:.3f}, {verdict}"
    node_id = prefixed(key)(node.name)
    if node.name == centre:
        title += f"\ncentre of ego-graph #{rank}"
        return VisNode(node_id, node.name, title, ROOT_STYLE, section=key)
    colour = ANSWER if node.name in answers else score_colour(node.gate)
    style = {"color": colour, "size": node_size(node.gate)}
    return VisNode(node_id, node.name, title, style, section=key)
