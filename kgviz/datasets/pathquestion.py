"""PathQuestion (IRN; SimGRAG's PQ): `PathQuestion/<n>H-kb.txt` and `PathQuestion/PQ-<n>H.txt`."""

from __future__ import annotations

import re
from pathlib import Path

from kgviz.datasets.base import QARecord
from kgviz.datasets.irn import IrnDataset, parse_hash_path, split_slash_list
from kgviz.errors import DataFormatError
from kgviz.kg.readers import open_text_lines

ANSWER_COLUMN = re.compile(r"[^()]*\(([^()]*)\)")


class PathQuestion(IrnDataset):
    """Family/nationality-style 2- or 3-hop path questions (Zhou et al., 2018); one split, `all`.

    QA line: `question<TAB>answer(ans1/ans2/)<TAB>topic#rel1#ent1#...#answer#<end>#answer`
    (further columns are ignored, as IRN's own reader does); KB lines are tab-separated triples.
    """

    domain = "paths"
    release = "PathQuestion"

    def __init__(self, hops: int, root: Path | None = None) -> None:
        super().__init__(root)
        self.hops = hops
        self.name = f"pathquestion-{hops}hop"
        self.description = f"PathQuestion {hops}-hop path questions over its {hops}H KB"

    @property
    def kb_files(self) -> list[Path]:
        return [self.root / "PathQuestion" / f"{self.hops}H-kb.txt"]

    @property
    def split_files(self) -> dict[str, Path]:
        return {"all": self.root / "PathQuestion" / f"PQ-{self.hops}H.txt"}

    def read_split(self, path: Path) -> list[QARecord]:
        records = []
        for number, line in open_text_lines(path):
            parts = line.split("\t")
            if len(parts) < 3:
                raise DataFormatError(
                    path,
                    number,
                    f"expected 'question<TAB>answer(...)<TAB>path', got {line[:120]!r}",
                )
            question, answer_column, path_column = parts[:3]
            answers = ANSWER_COLUMN.fullmatch(answer_column.strip())
            if answers is None:
                raise DataFormatError(
                    path, number, f"expected 'answer(ans1/ans2/)', got {answer_column!r}"
                )
            chain = parse_hash_path(path_column, path, number)
            records.append(
                QARecord(
                    question=question.strip(),
                    answers=split_slash_list(answers.group(1), path, number, "answers"),
                    topic_entities=(chain.topic,),
                    qid=f"{self.name}/{number}",
                    hops=chain.hops,
                )
            )
        return records
