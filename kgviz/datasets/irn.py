"""Shared parts of the IRN datasets (PathQuestion, WorldCup2014): TSV KBs, `#`-paths, `/`-lists."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kgviz.datasets.base import Dataset
from kgviz.errors import DataFormatError
from kgviz.kg.graph import KnowledgeGraph
from kgviz.kg.readers import read_triples

IRN_URL = "https://github.com/zmtkeke/IRN"
END = "<end>"


@dataclass(frozen=True)
class HashPath:
    """A relation path `e0#r1#e1#...#rn#en`; IRN's trailing `#<end>#answer` is not part of it."""

    entities: tuple[str, ...]
    relations: tuple[str, ...]

    @property
    def topic(self) -> str:
        return self.entities[0]

    @property
    def hops(self) -> int:
        return len(self.relations)


def parse_hash_path(text: str, path: Path, number: int) -> HashPath:
    """Parse one `#`-path up to its first `<end>` relation; errors name the file and line."""
    fields = text.strip().split("#")
    relations = fields[1::2]
    if END in relations:
        fields = fields[: 2 * relations.index(END) + 1]
    if len(fields) < 3 or len(fields) % 2 == 0 or not all(fields):
        raise DataFormatError(
            path, number, f"expected a path 'entity#relation#entity...', got {text[:120]!r}"
        )
    return HashPath(entities=tuple(fields[0::2]), relations=tuple(fields[1::2]))


def split_slash_list(text: str, path: Path, number: int, what: str) -> tuple[str, ...]:
    """Split `a/b/` into `("a", "b")`, dropping empty parts; at least one name is required."""
    names = tuple(name for name in (part.strip() for part in text.split("/")) if name)
    if not names:
        raise DataFormatError(path, number, f"no {what} in {text[:120]!r}")
    return names


class IrnDataset(Dataset):
    """A dataset from the IRN release (Zhou et al., 2018): one folder, tab-separated KB triples."""

    source_url = IRN_URL
    release = ""  # the name the IRN repository gives this data

    def read_kb(self) -> KnowledgeGraph:
        triples = (triple for file in self.kb_files for triple in read_triples(file, fmt="tsv"))
        return KnowledgeGraph.from_triples(triples, name=self.name)

    def how_to_get(self) -> str:
        files = ", ".join(path.name for path in [*self.kb_files, *self.split_files.values()])
        return (
            f"get the {self.release} files ({files}) from {self.source_url} and put them in "
            f"{self.kb_files[0].parent} (set KGVIZ_DATA to use another data root)"
        )
