from __future__ import annotations

from pathlib import Path

import pytest

from kgviz.datasets import get_dataset
from kgviz.datasets.base import Dataset
from kgviz.errors import DataFormatError, MissingDataError


@pytest.fixture
def wc2014(fixtures_root: Path) -> Dataset:
    return get_dataset("wc2014", root=fixtures_root)


def test_kg_keeps_inverse_relations(wc2014: Dataset) -> None:
    kg = wc2014.kg
    assert (kg.num_entities, kg.num_relations, kg.num_triples) == (11, 10, 24)
    assert "plays_in_club_inverse" in kg.relations
    assert wc2014.domain == "football"
    assert wc2014.available_splits() == ["1hop", "2hop", "conj"]


def test_one_hop_answer_set_counts_every_answer(wc2014: Dataset) -> None:
    records = wc2014.questions("1hop")
    assert len(records) == 3
    club = records[1]
    assert club.question == "which players play for FC_Nordhafen ?"
    assert club.answers == ("Jonas_BERGER", "Kenji_MORI")
    assert club.topic_entities == ("FC_Nordhafen",)
    assert club.hops == 1
    assert club.qid == "wc2014/WC-P1/2"


def test_two_hop_records(wc2014: Dataset) -> None:
    records = wc2014.questions("2hop")
    assert [r.topic_entities for r in records] == [("Jonas_BERGER",), ("FC_Nordhafen",)]
    assert records[1].answers == ("Midfielder", "Forward")
    assert {r.hops for r in records} == {2}


def test_conjunctive_lines_have_two_topics(wc2014: Dataset) -> None:
    records = wc2014.questions("conj")
    assert [r.topic_entities for r in records] == [
        ("Forward", "FC_Nordhafen"),
        ("Midfielder", "Germany"),
    ]
    assert records[0].answers == ("Kenji_MORI",)
    assert records[0].hops == 1


@pytest.mark.parametrize("split", ["1hop", "2hop", "conj"])
def test_topics_and_answers_are_kg_entities(wc2014: Dataset, split: str) -> None:
    for record in wc2014.questions(split):
        for entity in (*record.topic_entities, *record.answers):
            assert entity in wc2014.kg.entities


def test_bad_kb_line_is_reported(broken_copy) -> None:
    root = broken_copy("WC2014/WC2014.txt", 5, "Rafael_MONTEIRO\tplays_for_country")
    with pytest.raises(DataFormatError) as error:
        _ = get_dataset("wc2014", root=root).kg
    assert "WC2014.txt:5:" in str(error.value)


@pytest.mark.parametrize(
    ("file", "split", "text", "problem"),
    [
        ("WC-P1.txt", "1hop", "how old is Kenji_MORI ?\t27\tKenji_MORI#is_aged#27", "at least 4"),
        ("WC-P1.txt", "1hop", "how old is Kenji_MORI ?\t27\tKenji_MORI#is_aged\t27/", "path"),
        (
            "WC-P2.txt",
            "2hop",
            "where ?\tGermany\tJonas_BERGER#plays_in_club#FC_Nordhafen\t/",
            "answers",
        ),
        (
            "WC-C.txt",
            "conj",
            (
                "which ?\tJonas_BERGER\tMidfielder#plays_position_inverse#Jonas_BERGER"
                "\tJonas_BERGER/\tnone\tMidfielder/Germany"
            ),
            "2 path(s)",
        ),
        (
            "WC-C.txt",
            "conj",
            (
                "which ?\tJonas_BERGER\tMidfielder#plays_position_inverse#Jonas_BERGER*"
                "Germany#plays_for_country_inverse#Jonas_BERGER"
                "\tJonas_BERGER/\tnone\tGermany/"
            ),
            "two topic entities",
        ),
    ],
)
def test_bad_qa_line_is_reported(
    broken_copy, file: str, split: str, text: str, problem: str
) -> None:
    root = broken_copy(f"WC2014/{file}", 2, text)
    with pytest.raises(DataFormatError) as error:
        get_dataset("wc2014", root=root).questions(split)
    assert f"{file}:2:" in str(error.value)
    assert problem in error.value.problem


def test_missing_dataset_says_where_and_how(tmp_path: Path) -> None:
    with pytest.raises(MissingDataError) as error:
        get_dataset("wc2014", root=tmp_path).questions("conj")
    message = str(error.value)
    assert str(tmp_path / "WC2014") in message
    assert "https://github.com/zmtkeke/IRN" in message
    assert "WorldCup2014" in message
