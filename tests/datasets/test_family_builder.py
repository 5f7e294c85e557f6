"""The family-KG builder (bench/build_family_kg.py) on a small instance: every gold answer set is
exactly what its relation path reaches in kb.tsv, ids are unique, and a seed fixes the output."""

from __future__ import annotations

import importlib
import json
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import pytest

from kgviz.datasets.custom import read_qa_jsonl

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture
def build(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Callable:
    """Run the builder's main on 150 people into a folder, with the given seed."""
    monkeypatch.syspath_prepend(str(BENCH))
    main = importlib.import_module("build_family_kg").main

    def run(folder: Path, seed: int = 0) -> Path:
        assert main([str(folder), "--people", "150", "--seed", str(seed)]) == 0
        assert "questions: 1-hop" in capsys.readouterr().out
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
