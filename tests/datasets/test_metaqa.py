"""MetaQA on the real files in ../shared/data: counts, splits, and every name resolving."""

import time

import pytest

from kgviz.datasets import get_dataset
from kgviz.errors import DataFormatError, KgvizError, MissingDataError

DEV_SIZES = {1: 9992, 2: 14872, 3: 14274}


@pytest.fixture(scope="module")
def metaqa_root(request):
    return request.getfixturevalue("shared_data")


def test_kg_counts(metaqa_root):
    kg = get_dataset("metaqa-2hop", root=metaqa_root).kg
    assert (kg.num_entities, kg.num_relations, kg.num_triples) == (43_234, 9, 133_582)
    assert sorted(kg.relations) == sorted(
        [
            "directed_by",
            "written_by",
            "starred_actors",
            "release_year",
            "in_language",
            "has_genre",
            "has_imdb_votes",
            "has_imdb_rating",
            "has_tags",
        ]
    )
    assert "Tom Hanks" in kg.entities and "tom hanks" in kg.entities  # case kept apart


def test_processed_cache_is_reused(metaqa_root, tmp_cache):
    dataset = get_dataset("metaqa-1hop", root=metaqa_root)
    start = time.perf_counter()
    first = dataset.kg
    cold = time.perf_counter() - start
    assert len(list((tmp_cache / "graphs").glob("metaqa-*.npz"))) == 1
    again = get_dataset("metaqa-3hop", root=metaqa_root)  # same KB, same cache file
    start = time.perf_counter()
    second = again.kg
    warm = time.perf_counter() - start
    assert second.num_triples == first.num_triples
    assert len(list((tmp_cache / "graphs").glob("*.npz"))) == 1
    assert warm < cold * 2  # loose: the warm path must not be a full re-parse plus more


@pytest.mark.parametrize("hops", [1, 2, 3])
def test_dev_split_resolves(metaqa_root, hops):
    dataset = get_dataset(f"metaqa-{hops}hop", root=metaqa_root)
    assert dataset.available_splits() == ["dev"]
    records = dataset.questions("dev")
    assert len(records) == DEV_SIZES[hops]
    entities = dataset.kg.entities
    for record in records:
        assert len(record.topic_entities) == 1
        assert "[" not in record.question
        assert record.topic_entities[0] in record.question
        assert record.topic_entities[0] in entities
        assert all(answer in entities for answer in record.answers), record
    assert records[0].qtype and records[0].hops == hops


def test_unknown_split_lists_available(metaqa_root):
    with pytest.raises(KgvizError, match=r"no split 'train'.*available: dev"):
        get_dataset("metaqa-1hop", root=metaqa_root).questions("train")


def test_bad_qa_line_reports_line(tmp_path, tmp_cache):
    (tmp_path / "MetaQA" / "1-hop" / "vanilla").mkdir(parents=True)
    (tmp_path / "MetaQA" / "kb.txt").write_text("A|r|B\n")
    (tmp_path / "MetaQA" / "1-hop" / "vanilla" / "qa_dev.txt").write_text(
        "what is [A] r to\tB\nno topic here\tB\n"
    )
    with pytest.raises(DataFormatError, match=r"qa_dev.txt:2: question has no \[topic entity\]"):
        get_dataset("metaqa-1hop", root=tmp_path).questions("dev")


def test_bad_kb_line_reports_line(tmp_path, tmp_cache):
    (tmp_path / "MetaQA").mkdir()
    (tmp_path / "MetaQA" / "kb.txt").write_text("A|r|B\nA|r\n")
    with pytest.raises(DataFormatError, match=r"kb.txt:2: expected 3 non-empty fields"):
        _ = get_dataset("metaqa-1hop", root=tmp_path).kg


def test_missing_dataset_says_where_and_how(tmp_path):
    with pytest.raises(MissingDataError) as error:
        _ = get_dataset("metaqa-2hop", root=tmp_path).kg
    message = str(error.value)
    assert str(tmp_path) in message and "github.com/yuyuz/MetaQA" in message
