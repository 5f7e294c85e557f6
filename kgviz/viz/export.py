"""A run's evidence as files other tools read: GraphML (Gephi, Cytoscape, yEd) and node-link JSON
(networkx, d3). Nodes carry whether they are committed answers, gold answers or topic entities."""

from __future__ import annotations

import json

import networkx as nx

from kgviz.trace import Trace
from kgviz.viz.marks import Marks


def evidence_networkx(trace: Trace) -> nx.MultiDiGraph:
    """The evidence triples as a directed multigraph: edges carry `relation`; nodes `answer`,
    `gold` and `topic` flags."""
    marks, answers = Marks.of(trace), set(trace.answers)
    graph = nx.MultiDiGraph(method=trace.method, question=trace.question)
    for head, relation, tail in dict.fromkeys(trace.evidence):
        for name in (head, tail):
            graph.add_node(
                name,
                answer=name in answers,
                gold=marks.is_gold(name),
                topic=marks.is_topic(name),
            )
        graph.add_edge(head, tail, relation=relation)
    return graph


def evidence_graphml(trace: Trace) -> str:
    return "\n".join(nx.generate_graphml(evidence_networkx(trace)))


def evidence_json(trace: Trace) -> str:
    return json.dumps(
        nx.node_link_data(evidence_networkx(trace), edges="links"), ensure_ascii=False
    )
