"""Empty and odd inputs are refused in one line naming the file (and line): an empty KB or
question file, a NUL in a name, a question without answers, a folder where the KB should be."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kgviz.datasets.custom import CustomDataset
from kgviz.embed.cache import EmbeddingCache, embed_with_cache
from kgviz.errors import DataFormatError

KB = "Forrest Gump\tdirected_by\tRobert Zemeckis\nApollo 13\tdirected_by\tRon Howard\n"
QUESTION = {"question": "who directed Apollo 13", "answers": ["Ron Howard"]}


def folder_with(tmp_path, kb: bytes | None, questions: str | None = None):
    folder = tmp_path / "kg"
    folder.mkdir()
    if kb is not None:
        (folder / "kb.tsv").write_bytes(kb)
    (folder / "dev.jsonl").write_text(
        json.dumps(QUESTION) + "\n" if questions is None else questions
    )
    return folder


@pytest.mark.parametrize("kb", [b"", b"\n  \n\n"])
def test_an_empty_kb_is_one_line_on_a_fresh_cache(kgviz_cli, tmp_path, kb):
    folder = folder_with(tmp_path, kb)
    run = kgviz_cli("index", "build", f"custom:{folder}")
    assert run.returncode == 2
    assert run.error == f"kgviz: error: {folder / 'kb.tsv'}: holds no triples (the file is empty)"
    assert not (tmp_path / "cache" / "embeddings").exists()


def test_nothing_to_embed_is_no_error(tmp_path):
    class Encoder:
        model_name, dim = "m", 4

    assert embed_with_cache(Encoder(), [], EmbeddingCache("m", tmp_path)).shape == (0, 4)


def test_a_nul_in_a_name_is_refused_with_its_line(kgviz_cli, tmp_path):
    folder = folder_with(tmp_path, (KB + "Am\0lie\tdirected_by\tJeunet\n").encode())
    run = kgviz_cli("data", "info", f"custom:{folder}")
    assert run.returncode == 2
    assert f"{folder / 'kb.tsv'}:3: a name holds a NUL character" in run.error


@pytest.mark.parametrize(
    "line, problem",
    [
        ({"question": "who directed Apollo 13", "answers": []}, "'answers' must be a non-empty"),
        ({"question": "who directed Apollo 13"}, "'answers' must be a non-empty"),
        ({"question": "  ", "answers": ["Ron Howard"]}, "expected an object with a non-empty"),
        ({"question": "q", "answers": ["Ron\0Howard"]}, "'answers' holds a NUL character"),
    ],
)
def test_a_question_without_answers_is_refused_with_its_line(tmp_path, line, problem):
    folder = folder_with(tmp_path, KB.encode(), f"{json.dumps(QUESTION)}\n{json.dumps(line)}\n")
    with pytest.raises(DataFormatError, match=f"dev.jsonl:2: {problem}"):
        CustomDataset(folder).questions("dev")


def test_an_empty_question_file_is_refused(tmp_path):
    folder = folder_with(tmp_path, KB.encode(), "\n")
    with pytest.raises(DataFormatError, match=r"dev.jsonl: holds no questions"):
        CustomDataset(folder).questions("dev")


@pytest.mark.parametrize("name", ["kb.tsv", "kb.ttl"])
def test_a_kb_that_is_a_folder_is_called_a_folder(kgviz_cli, tmp_path, name):
    folder = folder_with(tmp_path, None)
    (folder / name).mkdir()
    run = kgviz_cli("data", "info", f"custom:{folder}")
    assert run.returncode == 2
    assert run.error == f"kgviz: error: {folder / name}: is a folder, not a file"


def test_a_missing_kb_is_still_not_found(kgviz_cli, tmp_path):
    folder = folder_with(tmp_path, None)
    run = kgviz_cli("data", "info", f"custom:{folder}")
    assert run.returncode == 2 and f"{folder / 'kb.tsv'} not found" in run.error


def test_control_characters_in_names_are_escaped_once(tmp_path):
    """The one place names enter a graph (`Vocabulary.add`) makes them visible; a name is then
    one line in every prompt, evidence line and view."""
    from kgviz.kg.graph import KnowledgeGraph

    kg = KnowledgeGraph.from_triples([("a\x1bb", "r\tq", "line\nbreak"), ("a\x1bb", "r", "c")])
    assert list(kg.entities) == ["a\\x1bb", "line\\nbreak", "c"]
    assert list(kg.relations) == ["r\\tq", "r"] and kg.entities.id("a\x1bb") == 0
    assert np.array_equal(kg.triples, [[0, 0, 1], [0, 1, 2]])
