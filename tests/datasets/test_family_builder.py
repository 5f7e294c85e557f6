"""The built-in family KG on a small instance: every gold answer set is exactly what its relation
path reaches in kb.tsv, ids are unique, a seed fixes the output, `family` builds on first use."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import pytest

from kgviz.datasets import get_dataset
from kgviz.datasets.custom import read_qa_jsonl
from kgviz.datasets.family_kg import write_family_kg


@pytest.fixture
def build() -> Callable:
    """Write the family KG of 150 people into a folder, with the given seed."""

    def run(folder: Path, seed: int = 0) -> Path:
        counts = write_family_kg(folder, seed=seed, people=150)
        assert counts["1-hop questions"] > 0 and counts["triples"] > 500
        return folder

    return run


def walk(kb: dict[tuple[str, str], set[str]], start: str, path: list[str]) -> set[str]:
    reached = {start}
    for relation in path:
        reached = set().union(*(kb.get((entity, relation), set()) for entity in reached))
    return reached


def test_gold_answers_follow_the_path(build: Callable, tmp_path: Path) -> None:
    folder = build(tmp_path / "family")
    kb: dict[tuple[str, str], set[str]] = defaultdict(set)
    for line in (folder / "kb.tsv").read_text().splitlines():
        head, relation, tail = line.split("\t")
        kb[head, relation].add(tail)
    records = [json.loads(line) for line in (folder / "dev.jsonl").read_text().splitlines()]
    assert {r["hops"] for r in records} == {1, 2, 3}
    for record in records:
        (topic,) = record["topic_entities"]
        assert record["hops"] == len(record["path"])
        assert record["id"].startswith(f"family-{record['hops']}hop-")
        assert record["answers"] == sorted(walk(kb, topic, record["path"]))
        assert 1 <= len(record["answers"]) <= 5 and topic not in record["answers"]
    assert len({r["id"] for r in records}) == len(records)
    assert len(read_qa_jsonl(folder / "dev.jsonl", "family")) == len(records)


def test_same_seed_same_files(build: Callable, tmp_path: Path) -> None:
    first, again = build(tmp_path / "a"), build(tmp_path / "b")
    other = build(tmp_path / "c", seed=1)
    for name in ("kb.tsv", "dev.jsonl"):
        assert (first / name).read_bytes() == (again / name).read_bytes()
        assert (first / name).read_bytes() != (other / name).read_bytes()


def test_the_named_dataset_is_written_into_the_cache_once(tmp_path: Path) -> None:
    dataset = get_dataset("family")
    assert not dataset.root.exists()  # the test's private cache
    records = dataset.questions("dev")
    assert dataset.root.is_relative_to(tmp_path) and len(records) > 600
    assert records[0].topic_entities and records[0].hops == 1
    assert dataset.kg.num_triples > 10_000
