"""WebQSP and CWQ in the RoG format: each question comes with its own Freebase subgraph.

The files are laid out as the dataset hub serves them
(`RoG-webqsp/data/train-00000-of-00002.parquet`, ...), or as JSONL files holding the same
records (`train.jsonl`, `test-00000-of-00001.jsonl`). A record has `id`, `question`, `answer`,
`q_entity`, `a_entity` and `graph` (`[head, relation, tail]` lists); `choices` may be present
and is ignored.

Runs use the question's own graph, as the SubgraphRAG and GNN-RAG papers do: the graphs were cut
around each question's topic entities, a union of thousands of them would be a different (and far
larger) retrieval task, and a small graph per question keeps every index and view small. So the
records are read without their graphs, and `question_graph` reads one graph when a run needs it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from kgviz.datasets.base import Dataset, QARecord
from kgviz.errors import DataError, DataFormatError, MissingDataError
from kgviz.kg.graph import KnowledgeGraph
from kgviz.kg.readers import StringTriple

RoGName = Literal["webqsp", "cwq"]
SPLITS = ("train", "validation", "test")
LIST_FIELDS = ("answer", "q_entity", "a_entity")
HUB = "https://huggingface.co/datasets/rmanluo/RoG-{name}"


@dataclass(frozen=True)
class GraphAddress:
    """Where a question's graph is: a JSONL line, or a parquet row group and row in it."""

    path: Path
    position: int  # the JSONL line number, or the parquet row group
    row: int = 0  # the JSONL line's byte offset, or the row in the parquet row group


def _strings(value: object) -> list[str] | None:
    if isinstance(value, str | int) and not isinstance(value, bool):
        return [str(value)]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [v for v in value if v]
    return None


def check_record(item: object) -> str | None:
    """The problem with one record's question fields (not its graph), or None."""
    if not isinstance(item, dict):
        return "expected an object"
    if not isinstance(item.get("id"), str | int) or isinstance(item.get("id"), bool):
        return "'id' must be a string"
    if not isinstance(item.get("question"), str) or not item["question"].strip():
        return "'question' must be a non-empty string"
    for key in LIST_FIELDS:
        if _strings(item.get(key)) is None:
            return f"{key!r} must be a list of strings"
    if not _strings(item.get("answer")) and not _strings(item.get("a_entity")):
        return "no answer: 'answer' and 'a_entity' are both empty"
    return None


def check_graph(value: object) -> list[StringTriple] | str:
    """The graph as string triples, or the problem with it."""
    if not isinstance(value, list):
        return "'graph' must be a list of [head, relation, tail] lists"
    triples = []
    for position, triple in enumerate(value, start=1):
        if (
            not isinstance(triple, list | tuple)
            or len(triple) != 3
            or not all(isinstance(part, str) and part.strip() for part in triple)
        ):
            return f"'graph' entry {position} is not [head, relation, tail]: {str(triple)[:80]}"
        head, relation, tail = (part.strip() for part in triple)
        triples.append((head, relation, tail))
    return triples


def to_record(item: dict[str, Any], dataset: str) -> QARecord:
    """A checked record without its graph; `answers` are the answer names, then any answer
    entity of the graph not among them."""
    answers = list(dict.fromkeys(_strings(item["answer"]) or []))
    answers += [a for a in _strings(item["a_entity"]) or [] if a not in answers]
    return QARecord(
        question=item["question"].strip(),
        answers=tuple(answers),
        topic_entities=tuple(dict.fromkeys(_strings(item["q_entity"]) or [])),
        qid=f"{dataset}/{item['id']}",
    )


class RoGDataset(Dataset):
    """WebQSP (`webqsp`) or CWQ (`cwq`) as published with RoG; splits train/validation/test."""

    domain = "freebase"
    per_question_graphs = True
    training_split = "train"  # its validation and test questions stay unseen

    def __init__(self, name: RoGName, root: Path | None = None) -> None:
        super().__init__(root)
        self.name = self.kg_name = name
        self.source_url = HUB.format(name=name)
        self.description = (
            f"{'WebQuestionsSP' if name == 'webqsp' else 'ComplexWebQuestions'} (RoG format): "
            "Freebase questions, each with its own subgraph"
        )
        self._addresses: dict[str, GraphAddress] = {}

    @property
    def folder(self) -> Path:
        return self.root / f"RoG-{self.name}" / "data"

    def shards(self, split: str) -> list[Path]:
        """The split's files: `<split>-*.parquet`, else `<split>.jsonl` / `<split>-*.jsonl`."""
        if not self.folder.is_dir():
            return []
        parquet = sorted(self.folder.glob(f"{split}-*.parquet"))
        jsonl = sorted(self.folder.glob(f"{split}.jsonl")) + sorted(
            self.folder.glob(f"{split}-*.jsonl")
        )
        return parquet or jsonl

    @property
    def kb_files(self) -> list[Path]:
        return [path for split in SPLITS for path in self.shards(split)]

    @property
    def split_files(self) -> dict[str, Path]:
        return {
            split: next(iter(self.shards(split)), self.folder / f"{split}.jsonl")
            for split in SPLITS
        }

    def how_to_get(self) -> str:
        return (
            f"download the parquet files of {self.source_url} (its data/ folder) into "
            f"{self.folder} (set KGVIZ_DATA to use another data root)"
        )

    def check_available(self) -> None:
        if not self.kb_files:
            raise MissingDataError(
                f"dataset {self.name!r}: no question files in {self.folder}; {self.how_to_get()}"
            )

    @property
    def kg(self) -> KnowledgeGraph:
        raise DataError(
            f"{self.name} gives each question its own graph; there is no single KG to load "
            "(runs read the question's graph)"
        )

    def questions(self, split: str) -> list[QARecord]:
        """The records of every file of `split`, without their graphs."""
        if split not in SPLITS:
            raise DataError(f"dataset {self.name!r} has no split {split!r} (use one of {SPLITS})")
        self.check_available()
        shards = self.shards(split)
        if not shards:
            have = ", ".join(self.available_splits()) or "none"
            raise DataError(
                f"dataset {self.name!r} has no {split} files in {self.folder} (available: {have})"
            )
        return [record for shard in shards for record in self.read_split(shard)]

    def read_split(self, path: Path) -> list[QARecord]:
        return list(self._read_shard(path))

    def _read_shard(self, path: Path) -> Iterator[QARecord]:
        seen: set[str] = set()
        for address, item in _rows(path, columns=("id", "question", *LIST_FIELDS)):
            problem = check_record(item)
            if problem is None and f"{self.name}/{item['id']}" in seen:
                problem = f"question id {item['id']!r} is used again"
            if problem is not None:
                raise _format_error(address, problem)
            record = to_record(item, self.name)
            seen.add(record.qid)
            self._addresses[record.qid] = address
            yield record

    def question_graph(self, record: QARecord) -> KnowledgeGraph:
        """The graph published with this question (read from its file on demand)."""
        if record.qid not in self._addresses:  # read by another instance: index every split
            for split in self.available_splits():
                self.questions(split)
        address = self._addresses.get(record.qid)
        if address is None:
            raise DataError(f"{record.qid} is not a question of {self.name}")
        item = _read_graph_at(address)
        triples = check_graph(item.get("graph"))
        if isinstance(triples, str):
            raise _format_error(address, triples)
        if not triples:
            raise _format_error(address, "the question's graph is empty")
        return KnowledgeGraph.from_triples(triples, name=f"{record.qid}")


def _format_error(address: GraphAddress, problem: str) -> DataFormatError:
    if address.path.suffix == ".parquet":
        return DataFormatError(
            address.path, 0, f"row group {address.position}, row {address.row}: {problem}"
        )
    return DataFormatError(address.path, address.position, problem)


def _rows(path: Path, columns: tuple[str, ...]) -> Iterator[tuple[GraphAddress, Any]]:
    """Each record of a shard with where it is; parquet reads only `columns`."""
    if path.suffix != ".parquet":
        yield from _jsonl_rows(path)
        return
    parquet = _parquet_file(path)
    present = set(parquet.schema_arrow.names)
    missing = [c for c in (*columns, "graph") if c not in present]
    if missing:
        raise DataFormatError(path, 0, f"no column {missing[0]!r} (columns: {sorted(present)})")
    for group in range(parquet.num_row_groups):
        table = parquet.read_row_group(group, columns=list(columns))
        for row, item in enumerate(table.to_pylist()):
            yield GraphAddress(path, group, row), item


def _jsonl_rows(path: Path) -> Iterator[tuple[GraphAddress, Any]]:
    """Each JSON line with its line number and byte offset (blank lines skipped)."""
    if not path.is_file():
        raise MissingDataError(f"file not found: {path}")
    with open(path, "rb") as handle:
        offset = 0
        for number, raw in enumerate(iter(handle.readline, b""), start=1):
            start, offset = offset, offset + len(raw)
            if not raw.strip():
                continue
            try:
                item = json.loads(raw.decode("utf-8").removeprefix("\ufeff"))
            except UnicodeDecodeError:
                raise DataFormatError(path, number, "not UTF-8 text") from None
            except json.JSONDecodeError as error:
                raise DataFormatError(path, number, f"invalid JSON ({error.msg})") from None
            yield GraphAddress(path, number, start), item


def _parquet_file(path: Path) -> Any:
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(path)
    except Exception as error:  # pyarrow raises its own ArrowInvalid / OSError kinds
        raise DataFormatError(path, 0, f"not a readable parquet file ({error})") from error


@lru_cache(maxsize=4)
def _graph_column(path: Path, group: int) -> list[Any]:
    """One row group's graphs (consecutive questions of a run share a row group)."""
    return _parquet_file(path).read_row_group(group, columns=["graph"]).column(0).to_pylist()


def _read_graph_at(address: GraphAddress) -> dict[str, Any]:
    if address.path.suffix == ".parquet":
        return {"graph": _graph_column(address.path, address.position)[address.row]}
    with open(address.path, "rb") as handle:
        handle.seek(address.row)
        raw = handle.readline()
    try:
        item = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        item = None
    if not isinstance(item, dict):
        raise DataFormatError(address.path, address.position, "the line changed since it was read")
    return item
