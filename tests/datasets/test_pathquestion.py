from __future__ import annotations

from pathlib import Path

import pytest

from kgviz.datasets import get_dataset
from kgviz.errors import DataFormatError, KgvizError, MissingDataError


@pytest.mark.parametrize(
    ("name", "entities", "relations", "triples"),
    [
        ("pathquestion-2hop", 12, 8, 14),  # 15 lines, one repeated
        ("pathquestion-3hop", 11, 6, 13),
    ],
)
def test_kg_counts(
    fixtures_root: Path, name: str, entities: int, relations: int, triples: int
) -> None:
    kg = get_dataset(name, root=fixtures_root).kg
    assert (kg.num_entities, kg.num_relations, kg.num_triples) == (entities, relations, triples)


def test_two_hop_records(fixtures_root: Path) -> None:
    dataset = get_dataset("pathquestion-2hop", root=fixtures_root)
    assert dataset.domain == "paths"
    assert dataset.available_splits() == ["all"]
    records = dataset.questions("all")
    assert len(records) == 4
    husband = records[1]
    assert husband.question == "what does marta_lindqvist 's husband do for a living ?"
    assert husband.answers == ("architect", "painter")
    assert husband.topic_entities == ("marta_lindqvist",)
    assert husband.hops == 2
    assert husband.qid == "pathquestion-2hop/2"


@pytest.mark.parametrize(
    ("name", "count", "hops"), [("pathquestion-2hop", 4, 2), ("pathquestion-3hop", 3, 3)]
)
def test_topics_and_answers_are_kg_entities(
    fixtures_root: Path, name: str, count: int, hops: int
) -> None:
    dataset = get_dataset(name, root=fixtures_root)
    records = dataset.questions("all")
    assert len(records) == count
    for record in records:
        assert record.hops == hops
        for entity in (*record.topic_entities, *record.answers):
            assert entity in dataset.kg.entities


def test_three_hop_answer_set(fixtures_root: Path) -> None:
    record = get_dataset("pathquestion-3hop", root=fixtures_root).questions("all")[2]
    assert record.answers == ("teacher", "novelist")
    assert record.topic_entities == ("liam_oconnor",)


def test_kb_line_with_spaces_is_reported(broken_copy) -> None:
    root = broken_copy("PathQuestion/2H-kb.txt", 3, "oskar_lindqvist nationality sweden")
    with pytest.raises(DataFormatError) as error:
        _ = get_dataset("pathquestion-2hop", root=root).kg
    assert error.value.line_number == 3
    assert error.value.path.endswith("2H-kb.txt")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "where ?\tnaples\tpaolo_ferrante#parents#giulia_ferrante#place_of_birth#naples",
            "answer(ans1/ans2/)",
        ),
        (
            "where ?\tnaples()\tpaolo_ferrante#parents#giulia_ferrante#place_of_birth#naples",
            "no answers",
        ),
        ("where ?\tnaples(naples/)\tpaolo_ferrante#parents#giulia_ferrante#place_of_birth", "path"),
        ("where ?\tnaples(naples/)", "question<TAB>"),
    ],
)
def test_bad_qa_line_is_reported(broken_copy, text: str, problem: str) -> None:
    root = broken_copy("PathQuestion/PQ-2H.txt", 4, text)
    with pytest.raises(DataFormatError) as error:
        get_dataset("pathquestion-2hop", root=root).questions("all")
    assert "PQ-2H.txt:4:" in str(error.value)
    assert problem in error.value.problem


def test_missing_dataset_says_where_and_how(tmp_path: Path) -> None:
    with pytest.raises(MissingDataError) as error:
        _ = get_dataset("pathquestion-3hop", root=tmp_path).kg
    message = str(error.value)
    assert str(tmp_path / "PathQuestion") in message
    assert "https://github.com/zmtkeke/IRN" in message
    assert "PQ-3H.txt" in message


def test_unknown_split_lists_all(fixtures_root: Path) -> None:
    with pytest.raises(KgvizError, match=r"available: all"):
        get_dataset("pathquestion-2hop", root=fixtures_root).questions("train")
