"""The Dataset interface: a knowledge graph plus question/answer splits read from `KGVIZ_DATA`."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from kgviz.errors import DataError, MissingDataError
from kgviz.kg.graph import KnowledgeGraph
from kgviz.kg.readers import StringTriple, read_triples, require_file
from kgviz.kg.store import cached_graph, source_fingerprint
from kgviz.paths import cache_name, cache_root, data_root

# What a KG can be about; methods adapt their prompts and few-shot examples to it.
DOMAINS = ("generic", "movies", "paths", "football", "commonsense", "freebase")
TOPIC_MARK = re.compile(r"\[([^\[\]]+)\]")


def split_topic_marks(question: str) -> tuple[str, tuple[str, ...]]:
    """A question with its topic entities marked in brackets (MetaQA's form, also what a user
    types), as plain text and the marked names.

    >>> split_topic_marks("who directed [Big]")
    ('who directed Big', ('Big',))
    >>> split_topic_marks("which films star [Tom Hanks] and [Meg Ryan]")
    ('which films star Tom Hanks and Meg Ryan', ('Tom Hanks', 'Meg Ryan'))
    >>> split_topic_marks("who directed Big")
    ('who directed Big', ())
    """
    return TOPIC_MARK.sub(r"\1", question).strip(), tuple(TOPIC_MARK.findall(question))


@dataclass(frozen=True)
class QARecord:
    """One question with its gold answers.

    `question` is plain text (MetaQA's `[...]` topic markers removed); `topic_entities` are KG
    entity names when the dataset marks them; `graph` holds a per-question graph where the dataset
    has one (ExplaGraphs); `qtype` is the dataset's question-type label when it has one.
    """

    question: str
    answers: tuple[str, ...]
    topic_entities: tuple[str, ...] = ()
    qid: str = ""
    qtype: str | None = None
    hops: int | None = None
    graph: tuple[StringTriple, ...] | None = field(default=None, repr=False)


class Dataset(ABC):
    """A named dataset. Subclasses say which files they need and how to parse them."""

    name: str = ""
    kg_name: str = ""  # datasets sharing one KB share its name, so caches and indexes are shared
    domain: str = "generic"  # what the KG is about (one of DOMAINS): methods adapt to it
    description: str = ""
    source_url: str = ""
    per_question_graphs: bool = False  # each question has its own graph (`question_graph`)
    training_split: str | None = None  # what trainers read by default (None: every split)

    def __init__(self, root: Path | None = None) -> None:
        self.root = Path(root) if root is not None else data_root()

    # -- what subclasses provide -----------------------------------------------------------
    @property
    @abstractmethod
    def kb_files(self) -> list[Path]:
        """The files whose triples make up the knowledge graph."""

    @property
    @abstractmethod
    def split_files(self) -> dict[str, Path]:
        """Every split this dataset can have, mapped to its file (present or not)."""

    @abstractmethod
    def read_split(self, path: Path) -> list[QARecord]:
        """Parse one split file into records."""

    def read_kb(self) -> KnowledgeGraph:
        """Parse the KB files into a graph (override for formats that are not triple lines)."""
        return KnowledgeGraph.from_triples(
            (triple for file in self.kb_files for triple in read_triples(file)),
            name=self.kg_name or self.name,
        )

    # -- shared behaviour --------------------------------------------------------------------
    def how_to_get(self) -> str:
        where = f" from {self.source_url}" if self.source_url else ""
        return (
            f"download the {self.name} files{where} and place them under {self.root} "
            f"(set KGVIZ_DATA to use another folder)"
        )

    def check_available(self) -> None:
        """Raise a MissingDataError naming the folder looked in and how to get the data, or a
        DataFormatError when something other than a file is where a KB file should be."""
        for file in self.kb_files:
            if not file.exists():
                raise MissingDataError(
                    f"dataset {self.name!r}: {file} not found (looked in {self.root}); "
                    f"{self.how_to_get()}"
                )
            require_file(file)

    def available_splits(self) -> list[str]:
        return [split for split, path in self.split_files.items() if path.is_file()]

    @cached_property
    def kg(self) -> KnowledgeGraph:
        """The knowledge graph, parsed once and then loaded from the processed cache."""
        self.check_available()
        key = source_fingerprint(self.kb_files)
        cache_file = cache_root() / "graphs" / f"{cache_name(self.kg_name or self.name)}-{key}.npz"
        return cached_graph(cache_file, self.read_kb)

    def question_graph(self, record: QARecord) -> KnowledgeGraph:
        """The graph a run over `record` uses: the KG, unless each question has its own."""
        return self.kg

    def training_graph(self, records: list[QARecord]) -> KnowledgeGraph:
        """The graph trainers read `records` against: the KG, or the union of the questions' own
        graphs (each question's neighbourhood is then the one it was published with, or more)."""
        if not self.per_question_graphs:
            return self.kg
        graphs = [self.question_graph(record) for record in records]
        return KnowledgeGraph.from_triples(
            (graph.triple_names(edge) for graph in graphs for edge in range(graph.num_triples)),
            name=f"{self.name}-training",
        )

    def questions(self, split: str) -> list[QARecord]:
        """The records of `split`; a clear error lists the splits that exist."""
        self.check_available()
        files = self.split_files
        if split not in files or not files[split].is_file():
            have = ", ".join(self.available_splits()) or "none"
            raise DataError(
                f"dataset {self.name!r} has no split {split!r} under {self.root} "
                f"(available: {have})"
            )
        return self.read_split(files[split])

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, root={str(self.root)!r})"
