"""GNN-RAG: the reasoning paths as a graph laid out left to right (topic entities on the left,
each entity one column further than its step along a path), coloured and sized by the GNN's
answer probability, and the paths as the prompt lists them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.gnnrag.paths import ReasoningPath
from kgviz.reasoners.gnnrag.records import Augmentation, NodeScore, NodeScores, PathRecord
from kgviz.viz.escape import esc
from kgviz.viz.evidence_view import ROOT_STYLE, drawn, node_size, triples_parts
from kgviz.viz.graph_data import VisNode
from kgviz.viz.marks import Marks
from kgviz.viz.palette import ANSWER, EVIDENCE, TOPIC, score_colour, score_key


def gnn_paths_graph(
    record: PathRecord,
    scores: NodeScores | None,
    topics: Iterable[str] = (),
    marks: Marks | None = None,
    kg: KnowledgeGraph | None = None,
) -> str:
    """HTML: the GNN's paths; the note names candidates out of reach and paths over the cap."""
    notes = []
    if record.unreachable:
        notes.append(f"no path within the hops to {', '.join(record.unreachable)}")
    if record.dropped:
        notes.append(f"{record.dropped} path(s) left out by max_paths")
    return paths_graph(record.paths, record.lines, scores, topics, "; ".join(notes), marks, kg)


def augmentation_graph(
    record: Augmentation,
    scores: NodeScores | None,
    topics: Iterable[str] = (),
    marks: Marks | None = None,
    kg: KnowledgeGraph | None = None,
) -> str:
    """HTML: the paths another method's evidence added to the GNN's."""
    note = (
        f"{record.method}: {record.evidence_triples} evidence triples as {record.paths} "
        f"paths, {len(record.added)} not among the GNN's"
    )
    return paths_graph(record.added, record.lines, scores, topics, note, marks, kg)


def paths_graph(
    paths: Sequence[ReasoningPath],
    lines: Sequence[str],
    scores: NodeScores | None,
    topics: Iterable[str] = (),
    note: str = "",
    marks: Marks | None = None,
    kg: KnowledgeGraph | None = None,
) -> str:
    """HTML: the graph of the paths' triples, layered left to right (topic entities as dark
    boxes, answer candidates ringed red, other entities in the colour and size of their answer
    probability; with `kg`, linked to it), then `lines`, the paths as the prompt gives them."""
    if not any(path.steps for path in paths):
        return f'<p style="font:13px sans-serif">No reasoning path. {esc(note)}</p>'
    known = {node.name: node for node in scores.nodes} if scores is not None else {}
    topic_names = set(topics)
    levels = _levels(paths)
    key = [
        ("topic entity", TOPIC),
        ("answer candidate (ring)", ANSWER),
        *score_key("answer probability"),
    ]
    graph = drawn(
        triples_parts(
            [triple for path in paths for triple in path.triples],
            lambda name: _node(name, known.get(name), name in topic_names, levels.get(name, 0)),
            key,
            note,
            marks=marks,
            kg=kg,
            ends=[path.end for path in paths],
        )
    )
    listed = "".join(f"<li>{esc(line)}</li>" for line in lines)
    return (
        f'{graph}<div style="font:13px sans-serif"><b>Paths as the prompt gives them</b>'
        f'<ol style="margin:2px 0">{listed}</ol></div>'
    )


def _levels(paths: Sequence[ReasoningPath]) -> dict[str, int]:
    """Each entity's column: its fewest steps from the start of a path through it (paths walk
    triples either way, so the triples' directions cannot place the topic entities first)."""
    levels: dict[str, int] = {}
    for path in paths:
        for step, name in enumerate([path.start, *(s.entity for s in path.steps)]):
            levels[name] = min(levels.get(name, step), step)
    return levels


def _node(name: str, score: NodeScore | None, topic: bool, level: int) -> VisNode:
    """An entity in its column (`level`): a topic, an entity the GNN scored, or another."""
    if topic:
        return VisNode(name, name, f"{name}\ntopic entity", ROOT_STYLE, level)
    if score is None:
        return VisNode(name, name, name, {"color": EVIDENCE, "size": node_size(None)}, level)
    fill = score_colour(score.probability)
    title = f"{name}\nanswer probability {score.probability:.3f}\nPageRank {score.ppr:.4f}" + (
        "\nanswer candidate" if score.candidate else ""
    )
    return VisNode(
        name,
        name,
        title,
        {
            "color": {"background": fill, "border": ANSWER if score.candidate else fill},
            "borderWidth": 3 if score.candidate else 1,
            "size": node_size(score.probability),
        },
        level,
    )
