"""Caches check what they hold when they read it: a shard, index or entry of the wrong shape,
dimension or type (or a folder where a file should be, or a file where a folder should be) is
set aside, reported once and rebuilt; a read-only cache leaves it alone and writes nothing."""

from __future__ import annotations

import json
import logging

import numpy as np
import pytest

from kgviz.embed.cache import EmbeddingCache, embed_with_cache
from kgviz.embed.index import FaissIndex
from kgviz.llm.cache import CachedLLM
from kgviz.llm.errors import LLMCacheMiss

MESSAGES = [{"role": "user", "content": "who directed Apollo 13"}]


class Encoder:
    """A deterministic 8-dimensional encoder (no model)."""

    model_name, dim = "m", 8

    def encode(self, texts: list[str], batch_size: int = 256) -> np.ndarray:
        return np.array([[len(t) + i for i in range(self.dim)] for t in texts], np.float32)


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


@pytest.mark.parametrize(
    "keys, vectors",
    [
        (np.zeros((2, 16), np.uint8), np.ones((2, 4), np.float32)),  # another dimension
        (np.zeros((2, 16), np.uint8), np.ones((2, 8), np.float64)),  # another type
        (np.zeros((2, 8), np.uint8), np.ones((2, 8), np.float32)),  # keys of the wrong shape
        (np.zeros((3, 16), np.uint8), np.ones((2, 8), np.float32)),  # a key without a vector
    ],
)
def test_a_wrong_embedding_shard_is_set_aside_once_and_rebuilt(tmp_path, caplog, keys, vectors):
    folder = tmp_path / "embeddings"
    encoder = Encoder()
    cache = EmbeddingCache("m", folder, dim=lambda: encoder.dim)
    good = embed_with_cache(encoder, ["a", "bb"], cache)
    with open(folder / "shard-0-planted.npz", "wb") as handle:
        np.savez(handle, keys=keys, vectors=vectors)
    with caplog.at_level(logging.WARNING, logger="kgviz"):
        for _ in range(2):  # a second run in the same process finds the shard gone
            fresh = EmbeddingCache("m", folder, dim=lambda: encoder.dim)
            assert np.array_equal(embed_with_cache(encoder, ["a", "bb", "ccc"], fresh)[:2], good)
    (warning,) = warnings_of(caplog)
    assert "shard-0-planted.npz was unreadable" in warning and "rebuilt" in warning
    assert (folder / "shard-0-planted.npz.corrupt").is_file()


def test_an_index_of_the_wrong_dimension_is_rebuilt(tmp_path, monkeypatch, caplog):
    """A 128-dimensional entity index against the 384-dimensional encoder (the real one)."""
    from kgviz.datasets import get_dataset
    from kgviz.embed.kg_index import KGIndex

    monkeypatch.setenv("KGVIZ_CACHE", str(tmp_path / "cache"))
    kg = get_dataset("demo").kg
    first = KGIndex.build(kg)
    stored = next((tmp_path / "cache" / "indexes").rglob("entities-flat.faiss"))
    FaissIndex.build(np.eye(kg.num_entities, 128, dtype=np.float32)).save(stored)
    shard = tmp_path / "cache" / "embeddings" / "all-MiniLM-L6-v2" / "shard-0-planted.npz"
    with open(shard, "wb") as handle:
        np.savez(handle, keys=np.zeros((1, 16), np.uint8), vectors=np.ones((1, 128), np.float32))
    with caplog.at_level(logging.WARNING, logger="kgviz"):
        again = KGIndex.build(kg)
    assert sorted(w.split(" was ")[0].rsplit("/", 1)[1] for w in warnings_of(caplog)) == [
        "entities-flat.faiss",
        "shard-0-planted.npz",
    ]
    assert again.entity_index.dim == 384
    assert [n.name for n in again.nearest_entities("Apollo 13", 3)] == [
        n.name for n in first.nearest_entities("Apollo 13", 3)
    ]


def plant_entry(llm: CachedLLM, kind: str) -> tuple:
    """Plant a bad cache entry for MESSAGES; (the path planted, what it holds now)."""
    request = {
        "backend": llm.name,
        "model": llm.model,
        "messages": MESSAGES,
        "schema": None,
        "options": llm.options(),
    }
    from kgviz.llm.cache import request_key

    entry = llm.entry_path(request_key(request))
    if kind == "entry is a folder":
        entry.mkdir(parents=True)
        (entry / "inside").write_text("kept")
        return entry, "folder"
    if kind == "cache folder is a file":
        llm.path.parent.mkdir(parents=True, exist_ok=True)
        llm.path.write_text("not a folder")
        return llm.path, "file"
    entry.parent.mkdir(parents=True)
    entry.write_text(json.dumps({"request": request, "completion": {"text": ["not text"]}}))
    return entry, "file"


KINDS = ["entry is a folder", "cache folder is a file", "entry of the wrong type"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_bad_llm_cache_entry_is_set_aside_and_recorded_again(tmp_path, caplog, reply_llm, kind):
    llm = CachedLLM(reply_llm, tmp_path / "llm-responses", "rw")
    planted, _ = plant_entry(llm, kind)
    with caplog.at_level(logging.WARNING, logger="kgviz"):
        assert llm.complete(MESSAGES).text == "Ron Howard"  # recorded again
        assert llm.complete(MESSAGES).cached  # and replayed
    (warning,) = warnings_of(caplog)
    assert f"{planted} was unreadable" in warning and "rebuilt" in warning
    assert planted.with_name(planted.name + ".corrupt").exists() and reply_llm.calls == 1


@pytest.mark.parametrize("kind", KINDS)
def test_a_read_only_cache_leaves_a_bad_entry_alone(tmp_path, caplog, reply_llm, kind):
    llm = CachedLLM(reply_llm, tmp_path / "llm-responses", "ro")
    planted, what = plant_entry(llm, kind)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    with caplog.at_level(logging.WARNING, logger="kgviz"):
        for _ in range(2):
            with pytest.raises(LLMCacheMiss, match="no cached reply"):
                llm.complete(MESSAGES)
    (warning,) = warnings_of(caplog)  # once, though read twice
    assert (
        f"{planted} was unreadable" in warning and "read-only cache: nothing is written" in warning
    )
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    assert (planted.is_dir() if what == "folder" else planted.is_file()) and reply_llm.calls == 0


def test_ask_under_cache_ro_with_the_cache_folder_a_file_is_one_line(
    kgviz_cli, ask_llm_only, tmp_path
):
    """The CLI: `--cache ro` with the whole response cache a file is a cache miss, in one line,
    and the file is left as it was."""
    folder = tmp_path / "cache" / "llm-responses"
    folder.parent.mkdir(parents=True)
    folder.write_text("not a folder")
    run = kgviz_cli(*ask_llm_only, "--cache", "ro")
    assert run.returncode == 2 and "no cached reply" in run.error
    assert "llm-responses was unreadable" in run.stderr and folder.read_text() == "not a folder"
