"""The results file under hostile conditions: a second writer through a symlink or a hard link,
the file replaced or appended to by someone else mid-run, a file-size limit mid-row. The LLM is
a stub on loopback (it says so); the evaluation, the writer and the reader are kgviz's own."""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest

from kgviz.errors import KgvizError
from kgviz.eval.results_file import ResultsWriter, read_results
from tests.commands import demo_eval, with_file_limit

ROW = {"method": "llm-only", "qid": "demo/dev/1", "hit1": True, "answer": "x"}


def row(qid: str) -> dict:
    return {**ROW, "qid": qid}


@pytest.mark.parametrize("link", ["symlink", "hard link"])
def test_a_second_writer_through_a_link_is_refused(tmp_path, link):
    out = tmp_path / "r.jsonl"
    other = tmp_path / "elsewhere" / "same.jsonl"
    other.parent.mkdir()
    with ResultsWriter(out) as first:
        (other.symlink_to if link == "symlink" else other.hardlink_to)(out)
        refused = pytest.raises(KgvizError, match=r"being written by kgviz eval \(pid")
        with refused, ResultsWriter(other):
            pass
        first.append(row("q1"))
    with ResultsWriter(other) as second:  # the first writer is done: the link may write now
        assert [r["qid"] for r in second.rows] == ["q1"]


def test_a_file_replaced_mid_run_stops_the_writer_and_loses_nothing(tmp_path):
    out = tmp_path / "r.jsonl"
    with ResultsWriter(out) as results:
        results.append(row("q1"))
        saved = tmp_path / "editor-save.tmp"  # an editor writes a new file and renames it over
        saved.write_text(out.read_text())
        os.replace(saved, out)
        with pytest.raises(KgvizError, match="was replaced or removed while this run wrote it"):
            results.append(row("q2"))
    assert [r["qid"] for r in read_results(out)] == ["q1"]  # the new file is left as it was
    with ResultsWriter(out) as resumed:
        resumed.append(row("q2"))
    assert [r["qid"] for r in read_results(out)] == ["q1", "q2"]


def test_a_line_appended_without_its_newline_is_ended_not_glued(tmp_path):
    out = tmp_path / "r.jsonl"
    with ResultsWriter(out) as results:
        results.append(row("q1"))
        with open(out, "a", encoding="utf-8") as other:
            other.write(json.dumps(row("q2")))  # no newline
        results.append(row("q3"))
    assert [r["qid"] for r in read_results(out)] == ["q1", "q2", "q3"]


def test_a_torn_last_line_is_cut_before_appending(tmp_path):
    out = tmp_path / "r.jsonl"
    out.write_text(json.dumps(row("q1")) + "\n" + json.dumps(row("q2"))[:20])
    with ResultsWriter(out) as results:
        assert [r["qid"] for r in results.rows] == ["q1"]
        results.append(row("q2"))
    assert out.read_text().count("\n") == 2 and len(read_results(out)) == 2


def eval_command(url: str, out, limit: int) -> list[str]:
    return demo_eval(
        "kaping",
        f"openai:{url}/v1#stub",
        "--limit",
        str(limit),
        "--cache",
        "off",
        "--quiet",
        "--out",
        str(out),
    )


def test_an_eval_under_a_file_size_limit_ends_in_one_line_and_resumes(tmp_path, fault_server):
    answer = json.dumps(
        {
            "choices": [{"message": {"content": "Robert Zemeckis"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 3},
        }
    ).encode()
    server = fault_server(lambda n, _: (200, answer, 0))
    out = tmp_path / "r.jsonl"
    warm = subprocess.run(  # the caches the limit would block (question vectors) are written
        eval_command(server.url, tmp_path / "warm.jsonl", 6),
        check=False,
        capture_output=True,
        text=True,
    )
    assert warm.returncode == 0, warm.stderr
    first = subprocess.run(
        eval_command(server.url, out, 2), check=False, capture_output=True, text=True
    )
    assert first.returncode == 0, first.stderr
    limit = out.stat().st_size + out.stat().st_size // 2  # room for 1.5 more rows

    cut = subprocess.run(
        with_file_limit(eval_command(server.url, out, 6), limit),
        check=False,
        capture_output=True,
        text=True,
    )
    errors = cut.stderr.strip().splitlines()
    assert cut.returncode == 2 and "Traceback" not in cut.stderr, cut.stderr
    assert errors[-1].startswith(f"kgviz: error: cannot write to {out}: File too large")
    kept = int(re.search(r"its (\d+) whole row\(s\) are kept", errors[-1]).group(1))
    assert kept == len(read_results(out)) >= 2
    assert out.read_text().endswith("\n")  # the torn row was taken back
    resumed = subprocess.run(
        eval_command(server.url, out, 6), check=False, capture_output=True, text=True
    )
    assert resumed.returncode == 0, resumed.stderr
    rows = read_results(out)
    assert len(rows) == 6 and len({r["qid"] for r in rows}) == 6
