from pathlib import Path

import pytest

from kgviz.errors import DataFormatError, MissingDataError
from kgviz.kg import read_triples


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "kb.txt"
    path.write_text(text, encoding="utf-8")
    return path


def test_pipe_and_tab_formats(tmp_path):
    assert list(read_triples(write(tmp_path, "A|r|B\n\nB|s|C\n"))) == [
        ("A", "r", "B"),
        ("B", "s", "C"),
    ]
    assert list(read_triples(write(tmp_path, "A\tr\tB x\r\n"))) == [("A", "r", "B x")]


def test_tab_file_keeps_pipes_inside_names(tmp_path):
    assert list(read_triples(write(tmp_path, "A|1\tr\tB\n"), fmt="tsv")) == [("A|1", "r", "B")]


@pytest.mark.parametrize("bad", ["A|r\n", "A|r|B|C\n", "A||B\n"])
def test_bad_line_names_file_and_line(tmp_path, bad):
    path = write(tmp_path, "X|r|Y\nX|r|Z\n" + bad)
    with pytest.raises(DataFormatError) as error:
        list(read_triples(path))
    assert error.value.line_number == 3
    assert str(error.value).startswith(f"{path}:3:")


def test_missing_file(tmp_path):
    with pytest.raises(MissingDataError, match="not found"):
        list(read_triples(tmp_path / "absent.txt"))
