"""WebQSP / CWQ in the RoG format: parquet shards as the dataset hub serves them, or JSONL files
with the same records; each question runs over its own graph."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from kgviz.cli import main
from kgviz.datasets import get_dataset
from kgviz.errors import DataFormatError, KgvizError, MissingDataError
from kgviz.reasoners.base import ReasonerContext
from kgviz.reasoners.registry import make_reasoner

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))
from rog_world import records, write_rog

EXPECTED_SPLITS = {"train": 35, "validation": 5, "test": 8}


@pytest.mark.parametrize("fmt", ["parquet", "jsonl"])
def test_data_info_reports_questions_per_split(tmp_path, capsys, monkeypatch, fmt):
    write_rog(tmp_path, "webqsp", fmt)
    monkeypatch.setenv("KGVIZ_DATA", str(tmp_path))
    assert main(["data", "info", "webqsp", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["splits"] == EXPECTED_SPLITS and info["graphs"] == "one per question"
    test = info["topics"]["test"]
    assert test["questions"] == test["marked"] == test["marked_found"] == 8
    assert test["graph_triples"] == sum(len(r["graph"]) for r in records()["test"])


def test_records_and_their_own_graphs(tmp_path):
    write_rog(tmp_path, "cwq")
    dataset = get_dataset("cwq", root=tmp_path)
    train = dataset.questions("train")
    assert len(train) == 35 and train[0].qid == "cwq/WebQTrn-0"  # both shards, in file order
    record = next(r for r in dataset.questions("test") if r.qid == "cwq/WebQTest-0")
    assert record.answers == ("Jamaican English", "Jamaican Creole English Language")
    assert record.topic_entities == ("Jamaica",) and record.graph is None  # read on demand
    graph = dataset.question_graph(record)
    assert "Jamaica" in graph.entities and "Barack Obama" not in graph.entities
    context = ReasonerContext(dataset, llm=None).for_question(record)
    assert context.kg is not None and context.kg.num_triples == graph.num_triples
    with pytest.raises(KgvizError, match="its own graph"):
        _ = dataset.kg


def test_missing_files_and_splits_say_where_to_get_them(tmp_path):
    with pytest.raises(MissingDataError, match="huggingface.co/datasets/rmanluo/RoG-webqsp"):
        get_dataset("webqsp", root=tmp_path).questions("test")
    write_rog(tmp_path, "webqsp", "jsonl")
    with pytest.raises(KgvizError, match="no split 'dev'"):
        get_dataset("webqsp", root=tmp_path).questions("dev")


def _rewrite_line(folder: Path, file: str, number: int, change) -> Path:
    path = folder / file
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[number - 1] = change(lines[number - 1])
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_malformed_jsonl_names_file_and_line(tmp_path):
    folder = write_rog(tmp_path, "webqsp", "jsonl")
    _rewrite_line(folder, "test-00000-of-00001.jsonl", 3, lambda line: line[:-1])
    with pytest.raises(DataFormatError, match=r"test-00000-of-00001.jsonl:3: invalid JSON"):
        get_dataset("webqsp", root=tmp_path).questions("test")

    def no_answers(line: str) -> str:
        return json.dumps({**json.loads(line), "answer": [], "a_entity": []})

    _rewrite_line(folder, "validation-00000-of-00001.jsonl", 2, no_answers)
    with pytest.raises(DataFormatError, match=r"validation-00000-of-00001.jsonl:2: no answer"):
        get_dataset("webqsp", root=tmp_path).questions("validation")


def test_a_broken_graph_fails_its_question_with_the_line(tmp_path):
    folder = write_rog(tmp_path, "webqsp", "jsonl")

    def short_triple(line: str) -> str:
        item = json.loads(line)
        item["graph"][1] = item["graph"][1][:2]
        return json.dumps(item)

    _rewrite_line(folder, "test-00000-of-00001.jsonl", 2, short_triple)
    dataset = get_dataset("webqsp", root=tmp_path)
    first, second = dataset.questions("test")[:2]
    assert dataset.question_graph(first).num_triples > 0
    with pytest.raises(DataFormatError, match=r":2: 'graph' entry 2 is not \[head, relation"):
        dataset.question_graph(second)


def test_a_parquet_shard_without_a_column_is_named(tmp_path):
    import pyarrow.parquet as pq

    folder = write_rog(tmp_path, "webqsp")
    shard = folder / "test-00000-of-00001.parquet"
    table = pq.read_table(shard).drop_columns(["q_entity"])
    pq.write_table(table, shard)
    with pytest.raises(DataFormatError, match="no column 'q_entity'"):
        get_dataset("webqsp", root=tmp_path).questions("test")
    shard.write_bytes(b"not parquet")
    with pytest.raises(DataFormatError, match="not a readable parquet file"):
        get_dataset("webqsp", root=tmp_path).questions("test")


def test_every_learned_method_retrieves_from_the_question_graph(tmp_path, tmp_cache):
    write_rog(tmp_path, "webqsp")
    dataset = get_dataset("webqsp", root=tmp_path)
    context = ReasonerContext(dataset, llm=None)
    for record in dataset.questions("test")[:2]:
        graph = dataset.question_graph(record)
        own = {graph.triple_names(edge) for edge in range(graph.num_triples)}
        for method in ("kaping", "gnnrag", "subgraphrag", "grag", "simgrag"):
            reasoner = make_reasoner(method, context).on_question(record)
            if method == "simgrag":  # its pattern comes from the LLM: only the graph is checked
                assert reasoner.context.kg.num_triples == len(own)
                continue
            trace = reasoner.retrieve_only(record.question, record.topic_entities)
            assert trace.evidence and set(map(tuple, trace.evidence)) <= own, method


@pytest.mark.llm
def test_eval_answers_each_question_on_its_own_graph(tmp_path, tmp_cache, monkeypatch):
    """The real offline LLM answers; rows give evidence recall and the checkpoint that ran."""
    write_rog(tmp_path, "webqsp")
    monkeypatch.setenv("KGVIZ_DATA", str(tmp_path))
    out = tmp_path / "rows.jsonl"
    argv = ["eval", "--dataset", "webqsp", "--split", "test", "--method", "kaping,gnnrag"]
    assert main([*argv, "--limit", "3", "--llm", "local", "--out", str(out), "--quiet"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["method"] for r in rows) == ["gnnrag"] * 3 + ["kaping"] * 3
    assert all(isinstance(r["evidence_recall"], bool) and r["evidence_size"] > 0 for r in rows)
    assert sum(r["evidence_recall"] for r in rows if r["method"] == "kaping") >= 2
    gnnrag = next(r for r in rows if r["method"] == "gnnrag")
    assert "(trained on metaqa)" in gnnrag["checkpoint"]
    assert any("no checkpoint trained on webqsp" in w for w in gnnrag["warnings"])
