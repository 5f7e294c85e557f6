from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

from kgviz.datasets import get_dataset
from kgviz.datasets.base import Dataset
from kgviz.errors import DataFormatError, MissingDataError

# The real data: KGVIZ_DATA (tests/conftest.py sets it to ../shared/data when that exists).
SHARED_DATA = Path(
    os.environ.get("KGVIZ_DATA") or Path(__file__).resolve().parents[2].parent / "shared" / "data"
)
HEADER = "arg1\targ2\tlabel\tgraph\n"
GOOD_ROW = (
    "Zoos should close.\tAnimals in zoos are safe.\tcounter\t"
    "(zoos; used for; animals)(animals; has property; safe)\n"
)

needs_shared = pytest.mark.skipif(
    not (SHARED_DATA / "ExplaGraphs").is_dir(),
    reason=f"real ExplaGraphs data not found in {SHARED_DATA} (set KGVIZ_DATA)",
)


@pytest.fixture(scope="module")
def explagraphs() -> Dataset:
    return get_dataset("explagraphs", root=SHARED_DATA)


@needs_shared
def test_rows_splits_and_labels(explagraphs: Dataset) -> None:
    records = explagraphs.questions("all")
    assert len(records) == 2766
    assert len(explagraphs.questions("train")) == 2368
    dev = explagraphs.questions("dev")
    assert len(dev) == 398
    assert dev[0] == records[2368]
    assert dev[0].question.startswith("Argument 1: marriage is pase.\nArgument 2: Not everyone")
    assert Counter(r.answers for r in records) == {("support",): 1534, ("counter",): 1232}
    assert explagraphs.domain == "commonsense"


@needs_shared
def test_graphs_and_kg(explagraphs: Dataset) -> None:
    records = explagraphs.questions("all")
    edges = Counter(len(r.graph or ()) for r in records)
    assert edges == {3: 872, 4: 1008, 5: 469, 6: 229, 7: 126, 8: 62}
    assert records[0].graph == (
        ("cannabis", "synonym of", "marijuana"),
        ("legal", "causes", "more available"),
        ("marijuana", "capable of", "good thing"),
        ("good thing", "desires", "legal"),
    )
    kg = explagraphs.kg
    assert (kg.num_entities, kg.num_relations, kg.num_triples) == (7279, 28, 11443)
    union = {triple for r in records for triple in r.graph or ()}
    assert union == {kg.triple_names(edge) for edge in range(kg.num_triples)}


@needs_shared
def test_quoted_rows_parse(explagraphs: Dataset) -> None:
    quoted = [r for r in explagraphs.questions("all") if '"' in r.question]
    assert len(quoted) == 5
    assert quoted[0].qid == "explagraphs/802"  # file line 804
    assert quoted[0].question.startswith('Argument 1: The "three strikes" law could lead')
    assert all(r.graph for r in quoted)


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        (
            "Zoos should close.\tAnimals in zoos are safe.\tneutral\t(zoos; used for; animals)\n",
            "support or counter",
        ),
        ("Zoos should close.\tAnimals in zoos are safe.\tcounter\t(zoos; used for)\n", "graph"),
        ("Zoos should close.\tcounter\t(zoos; used for; animals)\n", "4 tab-separated fields"),
        ('"Zoos should "close.\tAnimals.\tcounter\t(zoos; used for; animals)\n', "CSV quoting"),
    ],
)
def test_bad_row_is_reported(tmp_path: Path, row: str, problem: str) -> None:
    folder = tmp_path / "ExplaGraphs"
    folder.mkdir()
    (folder / "train_dev.tsv").write_text(HEADER + GOOD_ROW * 2 + row, encoding="utf-8")
    with pytest.raises(DataFormatError) as error:
        get_dataset("explagraphs", root=tmp_path).questions("all")
    assert "train_dev.tsv:4:" in str(error.value)
    assert problem in error.value.problem


def test_missing_header_is_reported(tmp_path: Path) -> None:
    (tmp_path / "ExplaGraphs").mkdir()
    (tmp_path / "ExplaGraphs" / "train_dev.tsv").write_text(GOOD_ROW, encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"train_dev.tsv:1: expected the header"):
        _ = get_dataset("explagraphs", root=tmp_path).kg


def test_missing_dataset_says_where_and_how(tmp_path: Path) -> None:
    with pytest.raises(MissingDataError) as error:
        get_dataset("explagraphs", root=tmp_path).questions("dev")
    message = str(error.value)
    assert str(tmp_path / "ExplaGraphs") in message
    assert "https://explagraphs.github.io" in message
    assert "expla_graphs/train_dev.tsv" in message
