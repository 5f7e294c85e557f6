"""The evaluation runner: JSONL rows, torn-line recovery, resume after a kill, the summary line."""

import json
import os
import signal
import subprocess
import time

import pytest

from kgviz.datasets import get_dataset
from kgviz.errors import DataFormatError
from kgviz.eval.plan import EvalPlan
from kgviz.eval.results_file import read_results
from kgviz.eval.summary import summarize
from kgviz.scoring.metrics import answer_prf, evidence_recall, named_in_reply
from tests.commands import demo_eval


def test_metrics():
    assert named_in_reply("It was directed by Joel Coen.", ["Joel Coen", "Ethan Coen"])
    assert not named_in_reply("Joel Coenish", ["Joel Coen"])
    assert answer_prf(["A", "B"], ["B", "C"]) == (0.5, 0.5, 0.5)
    assert answer_prf([], ["B"]) == (0.0, 0.0, 0.0)
    assert evidence_recall([("X", "r", "B")], ["B"]) and not evidence_recall(
        [("X", "r", "B")], ["C"]
    )


def test_torn_last_line_is_dropped(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"method": "m", "qid": "1"}\n{"method": "m", "qi')
    assert read_results(path) == [{"method": "m", "qid": "1"}]


def test_corrupt_middle_line_is_an_error(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"method": "m", "qid": "1"}\nnot json\n{"method": "m", "qid": "2"}\n')
    with pytest.raises(DataFormatError, match="r.jsonl:2"):
        read_results(path)


def test_plan_selects_parts_deterministically():
    records = get_dataset("demo").questions("dev")
    heldout = EvalPlan("dev", part="heldout").select(records)
    assert heldout == EvalPlan("dev", part="heldout").select(records)
    assert 0 < len(heldout) < len(records)
    sampled = EvalPlan("dev", limit=5, sample_seed=3).select(records)
    assert len(sampled) == 5 and sampled == EvalPlan("dev", limit=5, sample_seed=3).select(records)


def test_summary_by_method_and_hops():
    rows = [
        {
            "method": m,
            "hops": h,
            "hit1": hit,
            "f1": 0.0,
            "evidence_recall": True,
            "evidence_size": 2,
            "prompt_tokens": 10,
            "error": None,
        }
        for m, h, hit in [("a", 1, True), ("a", 2, False), ("b", 1, True), ("b", 2, True)]
    ]
    summary = summarize(rows)
    assert summary["hits@1"] == 0.75 and summary["n"] == 4
    assert summary["by_method"]["a"]["by_hops"]["2"]["hits@1"] == 0.0
    assert summary["truncated"] is None  # no row recorded it


@pytest.mark.slow
@pytest.mark.llm
def test_kill_and_resume(tmp_path):
    """A real run with the offline model, killed after its first row, then resumed to the end."""
    out = tmp_path / "r.jsonl"
    command = demo_eval(
        "llm-only", "local", "--limit", "3", "--cache", "off", "--out", str(out), "--quiet"
    )
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and (not out.exists() or not out.read_text().count("\n")):
        time.sleep(0.2)
    process.send_signal(signal.SIGKILL)
    process.wait()
    first = read_results(out)
    assert 1 <= len(first) < 3
    finished = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert finished.returncode == 0, finished.stderr
    rows = read_results(out)
    assert [r["qid"] for r in rows[: len(first)]] == [r["qid"] for r in first]
    assert len(rows) == 3 and len({r["qid"] for r in rows}) == 3
    summary = json.loads(finished.stdout.strip().splitlines()[-1])
    assert summary["n"] == 3 and 0.0 <= summary["hits@1"] <= 1.0
    assert os.path.getsize(out) == sum(len(json.dumps(r, ensure_ascii=False)) + 1 for r in rows)
    assert {r["llm"] for r in rows} == {"llamacpp:qwen2.5-coder-1.5b"}
    records = {r.qid: r for r in get_dataset("demo").questions("dev")}
    for row in rows:  # the contract's fields: the question and its gold answers
        record = records[row["qid"]]
        assert (row["question"], row["gold"]) == (record.question, list(record.answers))
        assert list(row)[:5] == ["llm", "method", "qid", "question", "gold"]


@pytest.mark.slow
@pytest.mark.llm
def test_ids_only_rows_leave_the_dataset_out(tmp_path):
    """Rows for publishing name questions by id; attach_questions restores the full rows."""
    from kgviz.eval.rows import attach_questions
    from kgviz.eval.runner import run_eval
    from kgviz.session import open_session

    session = open_session("demo", "local", cache_mode="rw")
    plan = EvalPlan("dev", limit=4)
    run_eval(session, ["llm-only"], plan, tmp_path / "ids.jsonl", progress=False, questions=False)
    run_eval(session, ["llm-only"], plan, tmp_path / "full.jsonl", progress=False)
    ids, full = read_results(tmp_path / "ids.jsonl"), read_results(tmp_path / "full.jsonl")
    in_order = [r.qid for r in plan.select(session.dataset.questions("dev"))]
    # the second run replays cached replies, several finishing at once: still in question order
    assert [r["qid"] for r in ids] == [r["qid"] for r in full] == in_order
    assert all("question" not in r and "gold" not in r for r in ids) and len(ids) == 4
    drop = ("seconds", "timings", "llm_seconds", "cached_calls")
    joined = attach_questions(ids, session.dataset.questions("dev"))
    assert [{k: v for k, v in r.items() if k not in drop} for r in joined] == [
        {k: v for k, v in r.items() if k not in drop} for r in full
    ]


def test_a_results_file_holds_one_llms_answers(tmp_path):
    """Resuming a file another LLM wrote is refused before any question is asked."""
    from kgviz.errors import KgvizError
    from kgviz.eval.runner import run_eval
    from kgviz.session import open_session

    out = tmp_path / "r.jsonl"
    text = json.dumps({"llm": "ollama:llama3.1:8b", "method": "llm-only", "qid": "demo/dev/0"})
    out.write_text(text + "\n")
    session = open_session("demo", "local", cache_mode="off")
    with pytest.raises(
        KgvizError,
        match=r"holds answers from ollama:llama3.1:8b, but this run "
        r"uses llamacpp:qwen2.5-coder-1.5b",
    ):
        run_eval(session, ["llm-only"], EvalPlan("dev", limit=2), out, progress=False)
    assert out.read_text() == text + "\n"


def test_rows_count_a_cached_reply_at_its_first_cost():
    from kgviz.datasets.base import QARecord
    from kgviz.eval.rows import result_row
    from kgviz.runs.run import judged_run
    from kgviz.trace import LLMCall, Trace

    record = QARecord(
        "who directed Forrest Gump", ("Robert Zemeckis",), ("Forrest Gump",), qid="q1", hops=1
    )
    pattern = LLMCall("pattern", [], "{}", 300, 40, 5.0, "llamacpp", "m", cached=False)
    answer = LLMCall("generation", [], "Robert Zemeckis", 200, 5, 3.0, "llamacpp", "m", cached=True)
    trace = Trace(
        method="simgrag",
        question=record.question,
        answer="Robert Zemeckis",
        answers=["Robert Zemeckis"],
        llm_calls=[pattern, answer],
        timings={"retrieval": 5.2, "total": 5.3},
    )
    row = result_row(judged_run(trace, record))
    assert row["seconds"] == 8.3 and row["llm_seconds"] == 8.0 and row["cached_calls"] == 1
    assert "question" not in row and "gold" not in row and row["hit1"]


def test_bad_out_paths_and_counts_are_one_line_errors(tmp_path):
    base = demo_eval("llm-only", "local", "--quiet")
    a_file = tmp_path / "notes.txt"
    a_file.write_text("not a folder")
    cases = [
        (["--out", str(tmp_path)], "is a folder"),
        (["--out", str(a_file / "r.jsonl")], "cannot write results to"),
        (["--out", str(tmp_path / "r.jsonl"), "--limit", "0"], "0 is not at least 1"),
        (["--out", str(tmp_path / "r.jsonl"), "--workers", "two"], "'two' is not a whole"),
    ]
    for extra, message in cases:
        done = subprocess.run(base + extra, capture_output=True, text=True, check=False)
        assert done.returncode == 2 and message in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == [a_file] and a_file.read_text() == "not a folder"


@pytest.mark.llm
def test_set_options_are_recorded_and_a_file_keeps_one_setting(tmp_path):
    """`settings` reach the reasoner and every row; resuming with other options is refused."""
    from kgviz.errors import KgvizError
    from kgviz.eval.runner import run_eval
    from kgviz.session import open_session
    from kgviz.viz.report import load_rows

    session = open_session("demo", "local", cache_mode="rw")
    plan, out = EvalPlan("dev", limit=2), tmp_path / "top1.jsonl"
    run_eval(session, ["kaping"], plan, out, progress=False, settings={"top_k": 1})
    rows = read_results(out)
    assert [r["settings"] for r in rows] == [{"top_k": 1}] * 2
    assert all(r["evidence_size"] == 1 for r in rows)  # the option reached the reasoner
    # every row records its whole setting: preset, every option, code, model file, no card
    assert all(r["preset"] == "tuned" and r["options"]["top_k"] == 1 for r in rows)
    assert rows[0]["options"]["hops"] == 1 and rows[0]["code"].startswith("0.")
    assert len(rows[0]["llm_sha256"]) == 64 and rows[0]["card_sha256"] == ""
    clash = "holds kaping answers with another preset or other options"
    for other in ({"top_k": 2}, None):
        with pytest.raises(KgvizError, match=clash):
            run_eval(session, ["kaping"], plan, out, progress=False, settings=other)
    with pytest.raises(KgvizError, match=clash):  # the same options under another preset
        run_eval(
            session, ["kaping"], plan, out, progress=False, settings={"top_k": 1}, preset="paper"
        )
    with pytest.raises(KgvizError, match="unknown option"):
        run_eval(
            session, ["kaping"], plan, tmp_path / "bad.jsonl", progress=False, settings={"top": 1}
        )
    assert not (tmp_path / "bad.jsonl").exists() and len(read_results(out)) == 2
    default = tmp_path / "default.jsonl"
    run_eval(session, ["kaping"], plan, default, progress=False)
    assert "settings" not in read_results(default)[0]
    labels = {r["method"] for r in load_rows([out, default])}
    assert labels == {"kaping [top_k=1]", "kaping"}


def test_eval_set_with_a_wrong_type_is_a_one_line_error(tmp_path):
    done = subprocess.run(
        demo_eval(
            "kaping", "local", "--quiet", "--set", "top_k=many", "--out", str(tmp_path / "r.jsonl")
        ),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and "top_k" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "r.jsonl").exists()
