"""`kgviz report` on a results row with a field of the wrong type is one line naming the file
and line (the file is only read)."""

from __future__ import annotations

import json

import pytest

from kgviz.errors import DataFormatError
from kgviz.viz.report import load_rows

ROW = {"method": "kaping", "qid": "demo/dev/1", "hit1": True, "f1": 1.0, "seconds": 1.5}


@pytest.mark.parametrize(
    "field, value, problem",
    [
        ("f1", "abc", "'f1' must be float, not 'abc'"),
        ("hit1", "yes", "'hit1' must be bool, not 'yes'"),
        ("answers", "Ron Howard", "'answers' must be list, not 'Ron Howard'"),
        ("hops", 1.5, "'hops' must be int or None, not 1.5"),
    ],
)
def test_a_row_with_a_field_of_the_wrong_type(tmp_path, kgviz_cli, field, value, problem):
    path = tmp_path / "r.jsonl"
    bad = {**ROW, "qid": "demo/dev/2", field: value}
    text = json.dumps(ROW) + "\n\n" + json.dumps(bad) + "\n"
    path.write_text(text)
    run = kgviz_cli("report", str(path))
    assert run.returncode == 2
    assert run.error == f"kgviz: error: {path}:3: a results row whose {problem}"
    assert path.read_text() == text


def test_rows_of_the_right_types_load(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({**ROW, "truncated": None, "hops": None}) + "\n")
    assert load_rows([path])[0]["f1"] == 1.0
    path.write_text(json.dumps({**ROW, "seconds": "slow"}) + "\n")
    with pytest.raises(DataFormatError, match=r"r.jsonl:1: .*'seconds' must be float"):
        load_rows([path])
