"""WorldCup2014 (IRN): KB `WC2014/WC2014.txt`, QA `WC-P1.txt`, `WC-P2.txt`, `WC-C.txt`."""

from __future__ import annotations

from pathlib import Path

from kgviz.datasets.base import QARecord
from kgviz.datasets.irn import IrnDataset, parse_hash_path, split_slash_list
from kgviz.errors import DataFormatError
from kgviz.kg.readers import open_text_lines

SPLIT_FILES = {"1hop": "WC-P1.txt", "2hop": "WC-P2.txt", "conj": "WC-C.txt"}


class WC2014(IrnDataset):
    """Questions about the players, clubs and countries of the 2014 World Cup (Zhou et al., 2018).

    QA line: `question<TAB>answer<TAB>path(s)<TAB>ans1/ans2/<TAB>...`; every name of the answer-set
    column is a gold answer. Splits `1hop` and `2hop` take the topic entity from the path's start;
    `conj` lines join two paths with `*` and name both topic entities `e1/e2` in a 6th column.
    The KB's `_inverse` relations are kept as given.
    """

    name = "wc2014"
    domain = "football"
    release = "WorldCup2014"
    description = "WorldCup2014 1-hop, 2-hop and conjunctive football questions"

    @property
    def kb_files(self) -> list[Path]:
        return [self.root / "WC2014" / "WC2014.txt"]

    @property
    def split_files(self) -> dict[str, Path]:
        return {split: self.root / "WC2014" / file for split, file in SPLIT_FILES.items()}

    def read_split(self, path: Path) -> list[QARecord]:
        conj = path.name == SPLIT_FILES["conj"]
        return [self._record(path, number, line, conj) for number, line in open_text_lines(path)]

    def _record(self, path: Path, number: int, line: str, conj: bool) -> QARecord:
        parts = line.split("\t")
        columns, paths_per_line = (6, 2) if conj else (4, 1)
        if len(parts) < columns:
            raise DataFormatError(
                path,
                number,
                f"expected at least {columns} tab-separated columns"
                " (question, answer, path, answer set, ...)",
            )
        chains = [parse_hash_path(text, path, number) for text in parts[2].split("*")]
        if len(chains) != paths_per_line:
            raise DataFormatError(
                path, number, f"expected {paths_per_line} path(s) joined by '*', got {len(chains)}"
            )
        topics: tuple[str, ...] = (chains[0].topic,)
        if conj:
            topics = split_slash_list(parts[5], path, number, "topic entities")
            if len(topics) != 2:
                raise DataFormatError(
                    path, number, f"expected two topic entities 'e1/e2', got {parts[5]!r}"
                )
        return QARecord(
            question=parts[0].strip(),
            answers=split_slash_list(parts[3], path, number, "answers"),
            topic_entities=topics,
            qid=f"{self.name}/{path.stem}/{number}",
            hops=max(chain.hops for chain in chains),
        )
