"""The run store: runs kept with their traces survive the process, one line each in the index
even with several writers at once, and a broken line or file is skipped or named in one line."""

from __future__ import annotations

import json
import logging
import multiprocessing
import subprocess
import sys
from pathlib import Path

import pytest

from kgviz.cli import main
from kgviz.errors import KgvizError
from kgviz.runs.store import RunStore
from tests.runs.kept import RECORD, a_run


def test_a_kept_run_lists_and_loads_back(tmp_path):
    store = RunStore(tmp_path)
    entry = store.save(a_run(top_k=3))
    (listed,) = store.entries()
    assert listed == entry and listed.hits1 is True and listed.options == {"top_k": 3}
    assert listed.code_version.startswith("0.1.0") and listed.parent is None
    loaded = store.load(entry.id)
    assert loaded.trace.answers == ["Robert Zemeckis"] and loaded.outcome.score.hit1
    assert loaded.record == RECORD and loaded.options == {"top_k": 3}
    store.annotate(entry.id, tags=["good", "baseline"], note="the first")
    assert (store.entry(entry.id).tags, store.entry(entry.id).note) == (
        ["baseline", "good"],
        "the first",
    )


@pytest.mark.parametrize(
    "broken",
    [
        b'{"run": {"id": "torn"',  # a writer killed mid-line
        b'{"run": {"id": "\xff"}}\n',  # a byte that is not UTF-8: the line alone is lost
    ],
)
def test_a_broken_index_line_is_skipped_with_a_warning(tmp_path, caplog, broken):
    store = RunStore(tmp_path)
    first = store.save(a_run())
    with open(store.index, "ab") as index:
        index.write(broken)
    second = store.save(a_run("Ron Howard"))
    with caplog.at_level(logging.WARNING):
        assert [e.id for e in store.entries()] == [first.id, second.id]
    assert "index.jsonl:2 is not a run entry" in caplog.text


def test_an_unreadable_run_file_is_one_line(tmp_path):
    store = RunStore(tmp_path)
    entry = store.save(a_run())
    store.path(entry.id).write_text("{not json")
    with pytest.raises(KgvizError, match="is not a readable run"):
        store.load(entry.id)
    with pytest.raises(KgvizError, match="no run 'nope'"):
        store.load("nope")


def _save_many(root: str, count: int) -> None:
    store = RunStore(Path(root))
    for number in range(count):
        store.save(a_run(f"answer {number}"))


def test_concurrent_writers_keep_every_run(tmp_path):
    context = multiprocessing.get_context("spawn")
    writers = [context.Process(target=_save_many, args=(str(tmp_path), 15)) for _ in range(3)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(120)
    lines = RunStore(tmp_path).index.read_text().splitlines()
    assert len(lines) == 45 and all(json.loads(line)["run"]["id"] for line in lines)
    assert len({e.id for e in RunStore(tmp_path).entries()}) == 45


def test_the_cli_keeps_asks_and_lists_shows_and_diffs_them(tmp_path, capsys, monkeypatch):
    """Two abstaining asks (an ungrounded question, on_ungrounded=abstain: no LLM is called,
    and the LLM address has no server) are kept, then listed after the process that made them
    has ended."""
    monkeypatch.setenv("KGVIZ_RUNS", str(tmp_path))
    for top_k in (3, 5):
        args = ["ask", "who directed the movies that Zorblax Quintavius acted in"]
        args += ["--method", "kaping", "--llm", "openai:http://127.0.0.1:9/v1#none", "--json"]
        args += ["--set", "on_ungrounded=abstain", "--set", f"top_k={top_k}"]
        assert main(args) == 0
    capsys.readouterr()
    listed = subprocess.run(
        [sys.executable, "-m", "kgviz", "runs", "list", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    first, second = json.loads(listed.stdout)
    assert first["grounded"] is False and first["options"]["top_k"] == 3
    assert main(["runs", "diff", first["id"], second["id"], "--json"]) == 0
    diff = json.loads(capsys.readouterr().out)
    assert diff["options"] == {"top_k": [3, 5]}
    assert main(["runs", "show", first["id"], "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["abstained"] is True
    assert main(["runs", "list", "--filter", "method=simgrag", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
