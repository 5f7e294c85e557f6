"""MetaQA (vanilla): `MetaQA/kb.txt` and `MetaQA/<n>-hop/vanilla/qa_<split>.txt`."""

from __future__ import annotations

from pathlib import Path

from kgviz.datasets.base import Dataset, QARecord, split_topic_marks
from kgviz.errors import DataFormatError
from kgviz.kg.readers import open_text_lines


def parse_metaqa_line(
    path: Path, number: int, line: str
) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """Split `question with [Topic]<TAB>ans1|ans2` into plain question, topics and answers."""
    parts = line.split("\t")
    if len(parts) != 2:
        raise DataFormatError(path, number, f"expected 'question<TAB>answers', got {line[:120]!r}")
    raw_question, raw_answers = parts
    question, topics = split_topic_marks(raw_question)
    if not topics:
        raise DataFormatError(path, number, "question has no [topic entity]")
    answers = tuple(a for a in raw_answers.split("|") if a)
    if not answers:
        raise DataFormatError(path, number, "no answers")
    return question, topics, answers


class MetaQA(Dataset):
    """Movie-domain multi-hop QA over the WikiMovies KB (Zhang et al., 2018)."""

    domain = "movies"
    kg_name = "metaqa"
    source_url = "https://github.com/yuyuz/MetaQA"
    SPLITS = ("train", "dev", "test")

    def __init__(self, hops: int, root: Path | None = None) -> None:
        super().__init__(root)
        self.hops = hops
        self.name = f"metaqa-{hops}hop"
        self.description = f"MetaQA {hops}-hop movie questions over the WikiMovies KB"

    @property
    def kb_files(self) -> list[Path]:
        return [self.root / "MetaQA" / "kb.txt"]

    @property
    def split_files(self) -> dict[str, Path]:
        folder = self.root / "MetaQA" / f"{self.hops}-hop"
        return {split: folder / "vanilla" / f"qa_{split}.txt" for split in self.SPLITS}

    def read_split(self, path: Path) -> list[QARecord]:
        qtypes = self._qtypes(path)
        records = []
        for index, (number, line) in enumerate(open_text_lines(path)):
            question, topics, answers = parse_metaqa_line(path, number, line)
            records.append(
                QARecord(
                    question=question,
                    answers=answers,
                    topic_entities=topics,
                    qid=f"{self.name}/{path.stem}/{number}",
                    hops=self.hops,
                    qtype=qtypes[index] if index < len(qtypes) else None,
                )
            )
        return records

    @staticmethod
    def _qtypes(split_path: Path) -> list[str]:
        """Question-type labels from `qa_<split>_qtype.txt` beside the vanilla folder, if
        present.
        """
        qtype_file = split_path.parent.parent / f"{split_path.stem}_qtype.txt"
        if not qtype_file.is_file():
            return []
        return [line for _, line in open_text_lines(qtype_file)]
