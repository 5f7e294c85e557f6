"""GRAG: the pruned ego-graphs the LLM is given, drawn with their soft-pruned edges faded, and
their hierarchical descriptions as the prompt holds them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.grag.records import Description, GatedNode, PrunedEgoGraph
from kgviz.viz.escape import esc
from kgviz.viz.evidence_view import ROOT_STYLE, node_size, triples_graph
from kgviz.viz.marks import Marks
from kgviz.viz.network import VisNode
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
    """HTML: the ego-graphs that kept a triple, merged: centres as dark boxes, entities in the
    colour and size of their gate (answers red), kept edges in the colour and width of their
    score, and the `max_pruned` best soft-pruned edges faded; a slider filters edges by score.
    With `kg`, entities link to it."""
    drawn = [
        (rank, graph)
        for rank, graph in enumerate(pruned, 1)
        if any(edge.kept for edge in graph.edges)
    ]
    edges = {(e.head, e.relation, e.tail): e for _, graph in drawn for e in graph.edges}
    faded = sorted((t for t, e in edges.items() if not e.kept), key=lambda t: -edges[t].score)
    gates = {node.name: node for _, graph in drawn for node in graph.nodes}
    centres: dict[str, str] = {}
    for rank, graph in drawn:
        centres.setdefault(graph.centre, f"centre of ego-graph #{rank}")
    notes = []
    if len(faded) > max_pruned:
        notes.append(f"{len(faded) - max_pruned} more soft-pruned edges not drawn")
    if len(drawn) < len(pruned):
        notes.append(f"{len(pruned) - len(drawn)} ego-graph(s) kept no edge")
    marked = set(answers)
    key = [
        ("ego-graph centre", TOPIC),
        ("answer", ANSWER),
        *score_key("gate"),
        ("soft-pruned edge", UNUSED),
    ]
    return triples_graph(
        [t for t, e in edges.items() if e.kept] + faded[:max_pruned],
        lambda name: _node(gates[name], centres.get(name), name in marked),
        key,
        "; ".join(notes),
        {t: e.score for t, e in edges.items()},
        set(faded),
        marks=marks,
        kg=kg,
    )


def _node(node: GatedNode, centre: str | None, is_answer: bool) -> VisNode:
    verdict = "described" if node.kept else "in no described triple"
    title = f"{node.name}\ngate {node.gate:.3f}, {verdict}"
    if centre is not None:
        return VisNode(node.name, node.name, f"{title}\n{centre}", ROOT_STYLE)
    return VisNode(
        node.name,
        node.name,
        title,
        {"color": ANSWER if is_answer else score_colour(node.gate), "size": node_size(node.gate)},
    )
