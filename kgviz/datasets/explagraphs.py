"""ExplaGraphs (GRAG's commonsense task): G-Retriever's `ExplaGraphs/train_dev.tsv`."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

from kgviz.datasets.base import Dataset, QARecord
from kgviz.errors import DataFormatError, MissingDataError
from kgviz.kg.graph import KnowledgeGraph
from kgviz.kg.readers import StringTriple

HEADER = ["arg1", "arg2", "label", "graph"]
LABELS = ("support", "counter")
GRAPH = re.compile(r"(?:\([^()]*\))+")
EDGE = re.compile(r"\(([^()]*)\)")
G_RETRIEVER_URL = "https://github.com/XiaoxinHe/G-Retriever"
TRAIN_ROWS = 2368  # the original ExplaGraphs train.tsv; the 398 rows after it are its dev.tsv


def parse_graph(text: str) -> tuple[StringTriple, ...] | None:
    """Parse `(c1; relation; c2)(c3; relation; c4)...` into triples, or None when malformed."""
    if not GRAPH.fullmatch(text.strip()):
        return None
    triples = []
    for edge in EDGE.findall(text):
        fields = [field.strip() for field in edge.split(";")]
        if len(fields) != 3 or not all(fields):
            return None
        triples.append((fields[0], fields[1], fields[2]))
    return tuple(triples)


def numbered_rows(path: Path) -> Iterator[tuple[int, list[str]]]:
    """Yield `(line_number, fields)` of each non-empty tab-separated row (CSV quoting allowed)."""
    if not path.is_file():
        raise MissingDataError(f"file not found: {path}")
    with open(path, encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t", strict=True)
        start = 1
        try:
            for row in reader:
                if row:
                    yield start, row
                start = reader.line_num + 1
        except csv.Error as error:
            raise DataFormatError(path, start, f"bad CSV quoting in this row ({error})") from error
        except UnicodeDecodeError:
            raise DataFormatError(path, start, "not UTF-8 text; save the file as UTF-8") from None


def question_text(belief: str, argument: str) -> str:
    return (
        f"Argument 1: {belief}\nArgument 2: {argument}\n"
        f"Do argument 1 and argument 2 support or counter each other?"
    )


class ExplaGraphs(Dataset):
    """Stance prediction: does an argument support or counter a belief? (Saha et al., 2021).

    Each record's question holds both arguments, its answer is `support` or `counter`, and its
    `graph` is the row's explanation graph; the KG is the union of all rows' graph triples.
    There is no official split of this file: `train` is its first 2368 rows (the original
    train.tsv), `dev` the remaining 398 (the original dev.tsv) and `all` every row.
    """

    name = "explagraphs"
    domain = "commonsense"
    description = "ExplaGraphs belief/argument stance with per-question explanation graphs"
    source_url = "https://explagraphs.github.io"
    SPLITS: ClassVar[dict[str, slice]] = {
        "train": slice(None, TRAIN_ROWS),
        "dev": slice(TRAIN_ROWS, None),
        "all": slice(None),
    }

    @property
    def tsv(self) -> Path:
        return self.root / "ExplaGraphs" / "train_dev.tsv"

    @property
    def kb_files(self) -> list[Path]:
        return [self.tsv]

    @property
    def split_files(self) -> dict[str, Path]:
        return dict.fromkeys(self.SPLITS, self.tsv)

    def how_to_get(self) -> str:
        return (
            f"get train_dev.tsv (ExplaGraphs, {self.source_url}, as re-packed by G-Retriever: "
            f"dataset/expla_graphs/train_dev.tsv in {G_RETRIEVER_URL}) and put it in "
            f"{self.tsv.parent} (set KGVIZ_DATA to use another data root)"
        )

    def questions(self, split: str) -> list[QARecord]:
        """The rows of `split` (all three splits read the same file)."""
        return super().questions(split)[self.SPLITS[split]]

    def read_kb(self) -> KnowledgeGraph:
        return KnowledgeGraph.from_triples(
            (triple for record in self.read_split(self.tsv) for triple in record.graph or ()),
            name=self.name,
        )

    def read_split(self, path: Path) -> list[QARecord]:
        rows = numbered_rows(path)
        number, header = next(rows, (1, []))
        if header != HEADER:
            raise DataFormatError(path, number, f"expected the header {HEADER}, got {header}")
        return [self._record(path, number, row, index) for index, (number, row) in enumerate(rows)]

    def _record(self, path: Path, number: int, row: list[str], index: int) -> QARecord:
        if len(row) != len(HEADER):
            raise DataFormatError(
                path,
                number,
                f"expected {len(HEADER)} tab-separated fields ({' '.join(HEADER)}), got {len(row)}",
            )
        belief, argument, label, graph_text = (field.strip() for field in row)
        if not (belief and argument):
            raise DataFormatError(path, number, "empty argument")
        if label not in LABELS:
            raise DataFormatError(path, number, f"label must be support or counter, got {label!r}")
        graph = parse_graph(graph_text)
        if not graph:
            raise DataFormatError(
                path,
                number,
                f"expected a graph '(c1; relation; c2)(...)', got {graph_text[:120]!r}",
            )
        return QARecord(
            question=question_text(belief, argument),
            answers=(label,),
            qid=f"{self.name}/{index}",
            graph=graph,
        )
