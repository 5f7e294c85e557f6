"""What an answer rests on: each committed answer cited by the evidence triples that connect it
to a topic entity, apart from the rest of the evidence, which was only consulted; and each
sentence of the reply linked to the triples whose names it mentions.

The rule is the same for every method, and reads only the finished trace:
- an answer's support is every shortest path, inside the evidence, from the nearest topic
  entity to the answer (at most `MAX_PATHS` of them; on each step, every triple between the two
  entities). SimGRAG's matched subgraph, GNN-RAG's reasoning path and a GRAG ego-graph's branch
  are such paths;
- an answer the evidence holds but does not connect to a topic entity (or a run without topic
  entities) is supported only by the triples that name it, marked as not linked;
- an answer the evidence does not name has no support;
- a sentence's triples are those whose two ends it names; failing that, those with one end
  it names.
The topic entities are those the run was given, else those entity linking found, else the
grounded mentions of the question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import islice, pairwise

import networkx as nx

from kgviz.reasoners.answers import mentioned_entities
from kgviz.trace import CITATIONS, GROUNDING, LINKING, StringTriple, Trace

MAX_PATHS = 3  # shortest paths cited per answer
SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


@dataclass(frozen=True)
class AnswerSupport:
    """The triples a committed `answer` rests on; `linked`: they connect it to a topic entity
    (else they only name it)."""

    answer: str
    triples: tuple[StringTriple, ...]
    linked: bool


@dataclass(frozen=True)
class SentenceSupport:
    """A sentence of the reply and the evidence triples it speaks of."""

    sentence: str
    triples: tuple[StringTriple, ...]


@dataclass(frozen=True)
class Citations:
    """The support of each committed answer and of each sentence of the reply."""

    answers: tuple[AnswerSupport, ...]
    sentences: tuple[SentenceSupport, ...]

    def cited(self) -> list[StringTriple]:
        """Every triple some committed answer rests on, in the order first cited."""
        return list(dict.fromkeys(t for support in self.answers for t in support.triples))


def topic_names(trace: Trace) -> list[str]:
    """The run's topic entities: given, else linked, else the grounded mentions' entities."""
    if trace.topics:
        return list(trace.topics)
    names = getattr(trace.stages.get(LINKING), "names", None)  # an EntityLinking
    if names:
        return list(names)
    mentions = getattr(trace.stages.get(GROUNDING), "mentions", ())  # a Grounding's
    return [m.entity for m in mentions if m.grounded and m.entity]


def cite(trace: Trace) -> Citations:
    """The citations of a finished run (see the module docstring)."""
    graph = evidence_graph(trace.evidence)
    topics = [name for name in topic_names(trace) if name in graph]
    answers = tuple(support(graph, topics, answer) for answer in trace.answers if answer in graph)
    return Citations(answers, sentence_links(trace.answer, trace.evidence))


def evidence_graph(evidence: list[StringTriple]) -> nx.Graph:
    """The evidence's entities, an edge between two whenever a triple links them (its
    `triples` attribute lists those triples)."""
    graph = nx.Graph()
    for triple in dict.fromkeys(evidence):
        head, _, tail = triple
        if graph.has_edge(head, tail):
            graph.edges[head, tail]["triples"].append(triple)
        else:
            graph.add_edge(head, tail, triples=[triple])
    return graph


def support(graph: nx.Graph, topics: list[str], answer: str) -> AnswerSupport:
    """The shortest paths from the nearest topic entity to `answer`, or the triples naming it."""
    if answer in topics:  # an answer the question names rests on nothing beyond itself
        return AnswerSupport(answer, naming(graph, answer), False)
    distance = nx.single_source_shortest_path_length(graph, answer)  # one search, every topic
    reachable = {topic: distance[topic] for topic in topics if topic in distance}
    if not reachable:
        return AnswerSupport(answer, naming(graph, answer), False)
    nearest = min(reachable.values())
    triples: list[StringTriple] = []
    for topic in (t for t in topics if reachable.get(t) == nearest):
        for path in islice(nx.all_shortest_paths(graph, topic, answer), MAX_PATHS):
            for a, b in pairwise(path):
                triples.extend(graph.edges[a, b]["triples"])
    return AnswerSupport(answer, tuple(dict.fromkeys(triples)), True)


def naming(graph: nx.Graph, name: str) -> tuple[StringTriple, ...]:
    """The triples with `name` at one end."""
    return tuple(t for _, _, data in graph.edges(name, data=True) for t in data["triples"])


def sentence_links(reply: str, evidence: list[StringTriple]) -> tuple[SentenceSupport, ...]:
    """Each sentence of a free-text `reply` that speaks of the evidence, with its triples (none
    for a JSON reply: its answers are cited apart)."""
    if reply.lstrip().startswith(("{", "[")):
        return ()
    triples = list(dict.fromkeys(evidence))
    names = {name for head, _, tail in triples for name in (head, tail)}
    links = []
    for sentence in filter(None, (s.strip() for s in SENTENCE_END.split(reply))):
        named = set(mentioned_entities(sentence, names))
        if not named:
            continue
        both = [t for t in triples if t[0] in named and t[2] in named]
        one = [t for t in triples if t[0] in named or t[2] in named]
        links.append(SentenceSupport(sentence, tuple(both or one)))
    return tuple(links)


def record_citations(trace: Trace) -> None:
    """Record the citations of a finished run with evidence (stage `citations`)."""
    if trace.evidence:
        trace.record(CITATIONS, cite(trace))
    else:
        trace.stages.pop(CITATIONS, None)
