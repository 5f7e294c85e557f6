"""Bring your own KG: a triples TSV, or RDF as N-Triples (`kb.nt`) or Turtle (`kb.ttl`) named by
`rdfs:label`, or a SPARQL endpoint serving it (`kb.sparql`), plus QA JSONL files (`question`,
`answers`, `topic_entities`).
"""

from __future__ import annotations

import json
import tomllib
from functools import cached_property
from pathlib import Path

from kgviz.datasets.base import DOMAINS, Dataset, QARecord
from kgviz.errors import DataError, DataFormatError
from kgviz.kg.graph import KnowledgeGraph
from kgviz.kg.readers import open_text_lines
from kgviz.paths import cache_root

KB_NAMES = ("kb.tsv", "kb.nt", "kb.ttl", "kb.sparql")
SETTINGS_NAME = "dataset.toml"  # optional: domain = "movies" (what the KG is about)


def read_domain(path: Path) -> str:
    """The `domain` a folder's `dataset.toml` declares (the few-shot examples and prompts methods
    use follow it); "generic" without the file."""
    if not path.is_file():
        return "generic"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise DataFormatError(path, 0, f"invalid TOML ({error})") from None
    if unknown := sorted(set(data) - {"domain"}):
        raise DataFormatError(path, 0, f"unknown key(s) {', '.join(unknown)}; known: domain")
    domain = data.get("domain", "generic")
    if domain not in DOMAINS:
        raise DataFormatError(
            path, 0, f"'domain' must be one of {', '.join(DOMAINS)}, not {domain!r}"
        )
    return str(domain)


def _string_list(path: Path, number: int, value: object, key: str) -> tuple[str, ...]:
    """A non-empty list of non-empty strings without NUL characters (a string is a list of one)."""
    if isinstance(value, str):
        value = [value]
    if not (isinstance(value, list) and value and all(isinstance(v, str) and v for v in value)):
        raise DataFormatError(
            path, number, f"{key!r} must be a non-empty list of non-empty strings"
        )
    if any("\0" in v for v in value):
        raise DataFormatError(path, number, f"{key!r} holds a NUL character (\\x00)")
    return tuple(value)


def _hops(path: Path, number: int, value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise DataFormatError(
            path, number, f"'hops' must be a whole number of at least 1, not {value!r}"
        )
    return value


def read_qa_jsonl(path: Path, dataset_name: str) -> list[QARecord]:
    """Read QA records, one JSON object per line; `question` and a non-empty `answers` list are
    required, question ids (`id`, default `<dataset_name>/<file stem>/<line number>`) must be
    unique, and a file without a question is refused."""
    records = []
    seen: dict[str, int] = {}
    for number, line in open_text_lines(path):
        try:
            item = json.loads(line)
        except json.JSONDecodeError as error:
            raise DataFormatError(path, number, f"invalid JSON ({error.msg})") from error
        question = item.get("question") if isinstance(item, dict) else None
        if not isinstance(question, str) or not question.strip():
            raise DataFormatError(path, number, "expected an object with a non-empty 'question'")
        qid = str(item.get("id", f"{dataset_name}/{path.stem}/{number}"))
        if qid in seen:
            raise DataFormatError(
                path,
                number,
                f"question id {qid!r} is used again (first on "
                f"line {seen[qid]}); ids must be unique",
            )
        seen[qid] = number
        records.append(
            QARecord(
                question=question.strip(),
                answers=_string_list(path, number, item.get("answers"), "answers"),
                topic_entities=_string_list(
                    path, number, item.get("topic_entities") or [], "topic_entities"
                )
                if item.get("topic_entities")
                else (),
                qid=qid,
                qtype=item.get("qtype") if isinstance(item.get("qtype"), str) else None,
                hops=_hops(path, number, item.get("hops")),
            )
        )
    if not records:
        raise DataFormatError(path, 0, "holds no questions (the file is empty)")
    return records


class CustomDataset(Dataset):
    """A folder holding one KB file (`kb.tsv`: head, relation, tail per line; or RDF in `kb.nt` /
    `kb.ttl`, see `kgviz.kg.rdf` for how its nodes are named) and `<split>.jsonl` files."""

    def __init__(self, folder: Path, name: str | None = None, domain: str | None = None) -> None:
        folder = Path(folder).expanduser().resolve()
        super().__init__(folder)
        self.name = name or f"custom:{folder}"
        self.domain = domain or read_domain(folder / SETTINGS_NAME)
        self.description = f"custom KG in {folder}"

    @property
    def kb_files(self) -> list[Path]:
        """The one KB file; when none is a file, the first KB name taken by something else
        (reported as what it is), else `kb.tsv`."""
        candidates = [self.root / name for name in KB_NAMES]
        present = [path for path in candidates if path.is_file()]
        if len(present) > 1:
            raise DataError(
                f"dataset {self.name!r}: {self.root} holds {', '.join(p.name for p in present)}; "
                f"keep only the one to use"
            )
        return present or [next((p for p in candidates if p.exists()), candidates[0])]

    @property
    def split_files(self) -> dict[str, Path]:
        if not self.root.is_dir():
            return {}
        return {path.stem: path for path in sorted(self.root.glob("*.jsonl"))}

    def how_to_get(self) -> str:
        return (
            f"create {self.root}/kb.tsv (head<TAB>relation<TAB>tail per line), or kb.nt / kb.ttl "
            f"(RDF; rdfs:label gives names), or kb.sparql (the URL of a SPARQL endpoint serving "
            f"it), and <split>.jsonl question files"
        )

    @cached_property
    def kg(self) -> KnowledgeGraph:
        """The KG read from its file, or the one a `kb.sparql` file names, read through its
        endpoint (`SparqlGraph`)."""
        (file,) = self.kb_files
        if file.suffix != ".sparql":
            return Dataset.kg.func(self)  # type: ignore[attr-defined]
        self.check_available()
        from kgviz.triplestore.config import EndpointConfig
        from kgviz.triplestore.graph import SparqlGraph

        return SparqlGraph.open(
            EndpointConfig.read(file), self.kg_name or self.name, cache_root() / "graphs"
        )

    def read_kb(self) -> KnowledgeGraph:
        (file,) = self.kb_files
        if file.suffix == ".tsv":
            return super().read_kb()
        from kgviz.kg.rdf import read_rdf_triples  # rdflib loads only for RDF (~0.1 s)

        return KnowledgeGraph.from_triples(read_rdf_triples(file), name=self.kg_name or self.name)

    def read_split(self, path: Path) -> list[QARecord]:
        return read_qa_jsonl(path, self.root.name)  # default ids name the folder, not its path
