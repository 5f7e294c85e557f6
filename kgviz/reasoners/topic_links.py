"""How a dataset's questions reach the KG: marked topic entities found in the graph, or, for
questions without marks, entities the linker finds in the question text.

`kgviz data info` reports these counts; trainers fill in the topics of unmarked questions with
`with_linked_topics`, so weak labels can be drawn from them too.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from kgviz.datasets.base import Dataset, QARecord
from kgviz.reasoners.base import ReasonerContext
from kgviz.reasoners.linking import EntityNames, LinkerConfig, link_entities, name_matches


@dataclass
class TopicCounts:
    """Questions of a split by how they reach the KG."""

    questions: int = 0
    marked: int = 0  # that name topic entities
    marked_found: int = 0  # ... every one of which is a KG entity (exact or normalised name)
    linked: int = 0  # unmarked ones in which the linker finds an entity
    graph_triples: int = 0  # summed over the questions' own graphs, where they have one

    @property
    def reach_kg(self) -> int:
        return self.marked_found + self.linked


def _marks_found(names: EntityNames, record: QARecord) -> bool:
    return all(names.lookup(topic) is not None for topic in record.topic_entities)


def count_topic_links(dataset: Dataset, records: Iterable[QARecord]) -> TopicCounts:
    """Count over `records`, each read against its own graph where the dataset has one. The
    linker runs by name only (exact, then normalised n-grams): no vector index is built."""
    counts = TopicCounts()
    shared = None if dataset.per_question_graphs else EntityNames(dataset.kg)
    for record in records:
        names = shared
        if names is None:
            graph = dataset.question_graph(record)
            counts.graph_triples += graph.num_triples
            names = EntityNames(graph)
        counts.questions += 1
        if record.topic_entities:
            counts.marked += 1
            counts.marked_found += _marks_found(names, record)
        elif name_matches(names, record.question, LinkerConfig()):
            counts.linked += 1
    return counts


def with_linked_topics(context: ReasonerContext, records: list[QARecord]) -> list[QARecord]:
    """`records` with the linker's entities as topics where a question marks none (the linker
    may use the context's vector index as its last resort)."""
    return [
        record
        if record.topic_entities
        else replace(
            record,
            topic_entities=tuple(
                link_entities(context.for_question(record), record.question).names
            ),
        )
        for record in records
    ]
