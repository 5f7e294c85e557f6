"""The encoder's dimension is remembered on disk: caches are checked against it without loading
the model, a changed model folder is a miss, and a bad record is set aside and rewritten."""

import logging
import os

import pytest

from kgviz.embed.encoder import SentenceEncoder, bundled_model_path
from kgviz.embed.encoder_dim import model_files_key, record_path, remember_dim, remembered_dim


def test_the_dimension_is_remembered_and_then_loads_no_model(tmp_cache):
    first = SentenceEncoder()
    assert first.dim == 384 and first.query_model() is not None  # read from the loaded model
    assert record_path(first.model_name).is_file()
    again = SentenceEncoder()  # a new process' encoder
    assert again.dim == 384 and again._model is None


def test_the_record_is_keyed_by_the_model_files(tmp_cache, tmp_path):
    folder = tmp_path / "model"
    (folder / "1_Pooling").mkdir(parents=True)
    (folder / "1_Pooling" / "config.json").write_text("{}")
    key = model_files_key(folder)
    remember_dim("m", key, 8)
    assert remembered_dim("m", key) == 8
    assert remembered_dim("other", key) is None
    (folder / "1_Pooling" / "config.json").write_text('{"word_embedding_dimension": 16}')
    assert model_files_key(folder) != key and remembered_dim("m", model_files_key(folder)) is None
    assert model_files_key(bundled_model_path("all-MiniLM-L6-v2")) == model_files_key(
        bundled_model_path("all-MiniLM-L6-v2")
    )


@pytest.mark.parametrize(
    "text",
    ["{torn", "[]", '{"model": "m", "files": "k"}', '{"model": "m", "files": "k", "dim": 0}'],
)
def test_a_bad_record_is_set_aside_and_rewritten(tmp_cache, caplog, text):
    path = record_path("m")
    path.parent.mkdir(parents=True)
    path.write_text(text)
    with caplog.at_level(logging.WARNING, logger="kgviz"):
        assert remembered_dim("m", "k") is None
    assert path.with_name(path.name + ".corrupt").is_file() and not path.exists()
    assert "was unreadable" in caplog.text
    remember_dim("m", "k", 8)
    assert remembered_dim("m", "k") == 8


def test_a_record_that_cannot_be_written_is_not_an_error(tmp_cache):
    tmp_cache.mkdir(parents=True)
    (tmp_cache / "encoders").write_text("a file where the folder should be")
    remember_dim("m", "k", 8)
    assert remembered_dim("m", "k") is None
    assert not [name for name in os.listdir(tmp_cache) if name.endswith(".tmp")]
