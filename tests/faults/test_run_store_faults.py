"""Run files and the run index as an attacker or a careless hand leaves them: a file that parses
but does not hold a run, an index line with a bad byte, an index that cannot be written. Each is
one line naming what is wrong; the other runs stay listed and loadable (a broken index line:
tests/runs/test_run_store.py)."""

from __future__ import annotations

import json

import pytest

from kgviz.cli import main
from kgviz.errors import KgvizError
from kgviz.runs.store import RunStore
from tests.runs.kept import a_run


def tampered(store: RunStore, run_id: str, change) -> None:
    path = store.path(run_id)
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda data: data.pop("entry"), "entry is not an entry"),
        (lambda data: data.update(record={"x": 1}), "record has no question and answers"),
        (lambda data: data["entry"].update(options="notadict"), "options is str, not dict"),
        (lambda data: data["entry"].update(id="../../etc"), "is not a run id"),
    ],
)
def test_a_run_file_that_parses_but_is_no_run_is_one_line(
    tmp_path, capsys, monkeypatch, change, said
):
    monkeypatch.setenv("KGVIZ_RUNS", str(tmp_path))
    store = RunStore(tmp_path)
    good = store.save(a_run("Ron Howard", top_k=3))
    for command in (["runs", "show"], ["runs", "diff", good.id]):
        bad = store.save(a_run(top_k=3))
        tampered(store, bad.id, change)
        assert main([*command, bad.id, "--json"]) == 2
        error = capsys.readouterr().err.strip().splitlines()
        assert len(error) == 1 and said in error[0] and "Traceback" not in error[0], error
        assert store.path(bad.id).with_name(f"{bad.id}.json.corrupt").is_file()  # set aside
    assert store.load(good.id).trace.answers == ["Ron Howard"]
    assert good.id in [entry.id for entry in store.entries()]


def test_an_entry_with_a_key_this_kgviz_does_not_know_still_lists_and_loads(tmp_path):
    store = RunStore(tmp_path)
    entry = store.save(a_run(top_k=3))
    tampered(store, entry.id, lambda data: data["entry"].update(added_later=1))
    lines = store.index.read_text().splitlines()
    event = json.loads(lines[0])
    event["run"]["added_later"] = 1
    store.index.write_text(json.dumps(event) + "\n")
    assert [listed.id for listed in store.entries()] == [entry.id]
    assert store.load(entry.id).trace.answers == ["Robert Zemeckis"]


def test_a_run_whose_index_line_cannot_be_written_leaves_no_file(tmp_path):
    store = RunStore(tmp_path)
    store.index.mkdir(parents=True)  # a folder where the index should be
    with pytest.raises(KgvizError, match="cannot write"):
        store.save(a_run(top_k=3))
    assert not list((tmp_path / "runs").glob("*.json"))
