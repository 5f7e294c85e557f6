"""Bad input ends in one line naming the file and line; corrupt caches are set aside and
rebuilt; a forged verification record cannot skip the model's hash."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pytest

from kgviz.datasets.custom import CustomDataset
from kgviz.errors import DataFormatError, KgvizError
from kgviz.eval.results_file import read_results
from kgviz.kg.readers import read_triples
from kgviz.llm.errors import ModelIntegrityError
from kgviz.llm.model_files import verify_file
from tests.commands import run_kgviz

KB = "Forrest Gump\tdirected_by\tRobert Zemeckis\nApollo 13\tdirected_by\tRon Howard\n"


def custom_folder(tmp_path: Path, kb: bytes, questions: str = "") -> Path:
    folder = tmp_path / "kg"
    folder.mkdir()
    (folder / "kb.tsv").write_bytes(kb)
    (folder / "dev.jsonl").write_text(
        questions
        or json.dumps({"question": "who directed Apollo 13", "answers": ["Ron Howard"]}) + "\n"
    )
    return folder


def test_a_latin1_kb_is_one_line_naming_file_and_line(tmp_path):
    folder = custom_folder(tmp_path, (KB + "Amélie\tdirected_by\tJeunet\n").encode("latin-1"))
    result = run_kgviz(
        "data", "info", f"custom:{folder}", "--json", env={"KGVIZ_CACHE": str(tmp_path / "cache")}
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"{folder / 'kb.tsv'}:3: not UTF-8 text (byte 0xe9" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_byte_order_mark_is_stripped(tmp_path):
    path = tmp_path / "kb.tsv"
    path.write_bytes(b"\xef\xbb\xbf" + KB.encode())
    assert next(iter(read_triples(path))) == ("Forrest Gump", "directed_by", "Robert Zemeckis")


def test_a_kb_that_is_a_folder(tmp_path):
    (tmp_path / "kb.tsv").mkdir()
    with pytest.raises(DataFormatError, match=r"kb.tsv: is a folder, not a file"):
        list(read_triples(tmp_path / "kb.tsv"))


def test_an_oversized_name_is_refused_with_its_line(tmp_path, monkeypatch):
    path = tmp_path / "kb.tsv"
    path.write_text(KB + "A\tr\t" + "x" * 1500 + "\n")
    with pytest.raises(DataFormatError, match=r"kb.tsv:3: a name of 1,500 characters"):
        list(read_triples(path))
    monkeypatch.setenv("KGVIZ_MAX_NAME_CHARS", "2000")
    assert len(list(read_triples(path))) == 3


@pytest.mark.parametrize(
    "lines, problem",
    [
        (
            [
                {"question": "q1", "answers": ["a"], "hops": 1},
                {"question": "q2", "answers": ["a"], "hops": "2"},
            ],
            r"dev.jsonl:2: 'hops' must be",
        ),
        (
            [
                {"id": "x", "question": "q1", "answers": ["a"]},
                {"id": "x", "question": "q2", "answers": ["a"]},
            ],
            r"dev.jsonl:2: question id 'x' is used again",
        ),
    ],
)
def test_bad_question_files(tmp_path, lines, problem):
    folder = custom_folder(tmp_path, KB.encode(), "\n".join(map(json.dumps, lines)) + "\n")
    with pytest.raises(DataFormatError, match=problem):
        CustomDataset(folder).questions("dev")


def test_a_long_dataset_path_makes_short_cache_names(tmp_path, monkeypatch):
    monkeypatch.setenv("KGVIZ_CACHE", str(tmp_path / "cache"))
    deep = tmp_path / ("a" * 200) / ("b" * 200)
    deep.mkdir(parents=True)
    (deep / "kb.tsv").write_text(KB)
    kg = CustomDataset(deep).kg
    assert kg.num_triples == 2
    assert all(len(p.name) < 100 for p in (tmp_path / "cache" / "graphs").iterdir())


def test_results_rows_of_the_wrong_shape(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"method": "a", "qid": "1"}\n[1, 2]\n{"method": "a", "qid": "2"}\n')
    with pytest.raises(DataFormatError, match=r"r.jsonl:2: not a results row"):
        read_results(path)
    result = run_kgviz("report", str(path))
    assert result.returncode == 2 and "r.jsonl:2: not a results row" in result.stderr


def test_a_malformed_ollama_host_is_one_line(tmp_path):
    result = run_kgviz(
        "ask",
        "who directed Apollo 13",
        "--dataset",
        "demo",
        "--method",
        "llm-only",
        "--llm",
        "ollama",
        env={"OLLAMA_HOST": "http://h:port", "KGVIZ_CACHE": str(tmp_path / "cache")},
    )
    assert (
        result.returncode == 2
        and "OLLAMA_HOST 'http://h:port' is not a server address" in result.stderr
        and "Traceback" not in result.stderr
    )


def test_a_torn_processed_graph_is_rebuilt(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("KGVIZ_CACHE", str(tmp_path / "cache"))
    folder = custom_folder(tmp_path, KB.encode())
    assert CustomDataset(folder).kg.num_triples == 2
    cached = next((tmp_path / "cache" / "graphs").glob("*.npz"))
    cached.write_bytes(cached.read_bytes()[:100])  # torn
    with caplog.at_level(logging.WARNING, logger="kgviz"):
        assert CustomDataset(folder).kg.num_triples == 2
    assert "was unreadable" in caplog.text and cached.with_name(cached.name + ".corrupt").exists()
    assert CustomDataset(folder).kg.num_triples == 2  # and loads from the rebuilt cache


def test_a_corrupt_embedding_shard_is_set_aside(tmp_path, caplog):
    from kgviz.embed.cache import EmbeddingCache

    cache = EmbeddingCache("model", tmp_path)
    cache.put(["a", "b"], np.ones((2, 4), dtype=np.float32))
    shard = next(tmp_path.glob("shard-*.npz"))
    shard.write_bytes(b"PK\x03\x04 torn")
    with caplog.at_level(logging.WARNING, logger="kgviz"):
        _, missing = EmbeddingCache("model", tmp_path).lookup(["a", "b"])
    assert missing == [0, 1] and "was unreadable" in caplog.text


def test_a_corrupt_llm_cache_entry_is_set_aside(tmp_path, reply_llm):
    from kgviz.llm.cache import CachedLLM

    entry = tmp_path / "ab" / "abcd.json"
    entry.parent.mkdir()
    entry.write_text(
        json.dumps(
            {
                "request": {},
                "completion": {
                    "text": 5,
                    "parsed": None,
                    "prompt_tokens": "many",
                    "completion_tokens": 1,
                    "latency_s": 0.1,
                    "backend": "b",
                    "model": "m",
                    "truncated": False,
                },
            }
        )
    )
    assert CachedLLM(reply_llm, tmp_path)._read(entry) is None
    assert not entry.exists() and entry.with_name("abcd.json.corrupt").exists()


def test_a_forged_verification_record_does_not_skip_the_hash(tmp_path, monkeypatch):
    monkeypatch.setenv("KGVIZ_MODELS", str(tmp_path))
    model = tmp_path / "m.gguf"
    model.write_bytes(b"genuine weights")
    import hashlib

    genuine = hashlib.sha256(b"genuine weights").hexdigest()
    verify_file(model, 15, genuine)  # a full hash writes the record
    model.write_bytes(b"tampered weight")  # same size
    sidecar = model.with_name("m.gguf.verified.json")
    record = json.loads(sidecar.read_text())
    stat = model.stat()
    record.update(mtime_ns=stat.st_mtime_ns, ctime_ns=stat.st_ctime_ns, inode=stat.st_ino)
    sidecar.write_text(json.dumps(record))  # forged to match the tampered file
    with pytest.raises(ModelIntegrityError, match="has sha256"):
        verify_file(model, 15, genuine)


def test_unknown_kgviz_error_classes_stay_one_line():
    assert issubclass(DataFormatError, KgvizError)


def test_a_corrupt_faiss_index_is_rebuilt(tmp_path, monkeypatch, caplog):
    from kgviz.datasets import get_dataset
    from kgviz.embed.kg_index import KGIndex

    monkeypatch.setenv("KGVIZ_CACHE", str(tmp_path / "cache"))
    kg = get_dataset("demo").kg
    first = KGIndex.build(kg)
    stored = next((tmp_path / "cache" / "indexes").rglob("entities-flat.faiss"))
    stored.write_bytes(stored.read_bytes()[:64])  # truncated
    with caplog.at_level(logging.WARNING, logger="kgviz"):
        again = KGIndex.build(kg)
    assert "was unreadable" in caplog.text
    assert [n.name for n in again.nearest_entities("Forrest Gump", 3)] == [
        n.name for n in first.nearest_entities("Forrest Gump", 3)
    ]
