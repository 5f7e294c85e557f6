"""GNN-RAG: the reasoning paths as a graph, each entity coloured and sized by the GNN's answer
probability, and the paths as the prompt lists them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kgviz.reasoners.gnnrag.paths import ReasoningPath
from kgviz.reasoners.gnnrag.records import Augmentation, NodeScore, NodeScores, PathRecord
from kgviz.viz.html import VisNode, esc
from kgviz.viz.palette import ANSWER, EVIDENCE, TOPIC, score_colour, score_key
from kgviz.viz.subgraph_view import ROOT_STYLE, node_size, triples_graph


def gnn_paths_graph(
    record: PathRecord, scores: NodeScores | None, topics: Iterable[str] = ()
) -> str:
    """HTML: the GNN's paths; the note names candidates out of reach and paths over the cap."""
    notes = []
    if record.unreachable:
        notes.append(f"no path within the hops to {', '.join(record.unreachable)}")
    if record.dropped:
        notes.append(f"{record.dropped} path(s) left out by max_paths")
    return paths_graph(record.paths, record.lines, scores, topics, "; ".join(notes))


def augmentation_graph(
    record: Augmentation, scores: NodeScores | None, topics: Iterable[str] = ()
) -> str:
    """HTML: the paths another method's evidence added to the GNN's."""
    note = (
        f"{record.method}: {record.evidence_triples} evidence triples as {record.paths} "
        f"paths, {len(record.added)} not among the GNN's"
    )
    return paths_graph(record.added, record.lines, scores, topics, note)


def paths_graph(
    paths: Sequence[ReasoningPath],
    lines: Sequence[str],
    scores: NodeScores | None,
    topics: Iterable[str] = (),
    note: str = "",
) -> str:
    """HTML: the graph of the paths' triples (topic entities as dark boxes, answer candidates
    ringed red, other entities in the colour and size of their answer probability), then `lines`,
    the paths as the prompt gives them."""
    if not paths:
        return f'<p style="font:13px sans-serif">No reasoning path. {esc(note)}</p>'
    known = {node.name: node for node in scores.nodes} if scores is not None else {}
    topic_names = set(topics)
    key = [
        ("topic entity", TOPIC),
        ("answer candidate (ring)", ANSWER),
        *score_key("answer probability"),
    ]
    graph = triples_graph(
        [triple for path in paths for triple in path.triples],
        lambda name: _node(name, known.get(name), name in topic_names),
        key,
        note,
    )
    listed = "".join(f"<li>{esc(line)}</li>" for line in lines)
    return (
        f'{graph}<div style="font:13px sans-serif"><b>Paths as the prompt gives them</b>'
        f'<ol style="margin:2px 0">{listed}</ol></div>'
    )


def _node(name: str, score: NodeScore | None, topic: bool) -> VisNode:
    if topic:
        return VisNode(name, name, f"{name}\ntopic entity", ROOT_STYLE)
    if score is None:
        return VisNode(name, name, name, {"color": EVIDENCE, "size": node_size(None)})
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
    )
