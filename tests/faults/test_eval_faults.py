"""Evaluation runs under faults: one writer per results file, transient failures leave no error
rows, failed questions stay pending, and the run says how many failed (stub LLM servers)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from kgviz.datasets import get_dataset
from kgviz.errors import KgvizError
from kgviz.eval.plan import EvalPlan
from kgviz.eval.results_file import read_results
from kgviz.eval.runner import run_eval
from kgviz.eval.writer_lock import sole_writer
from kgviz.llm.openai_backend import OpenAIBackend
from kgviz.reasoners.base import ReasonerContext
from kgviz.session import Session
from tests.commands import demo_eval


def reply(text: str) -> bytes:
    return json.dumps(
        {
            "choices": [{"message": {"content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 3},
        }
    ).encode()


def session_on(url: str) -> Session:
    dataset = get_dataset("demo")
    return Session(dataset, ReasonerContext(dataset, OpenAIBackend(url + "/v1", "m")), "stub")


def test_a_second_writer_is_refused_naming_the_first(tmp_path):
    out = tmp_path / "r.jsonl"
    refused = pytest.raises(KgvizError, match=r"being written by kgviz eval \(pid")
    with sole_writer(out), refused, sole_writer(out):
        pass
    with sole_writer(out):  # released with the first run
        pass


def test_a_second_eval_on_the_same_file_is_refused(tmp_path, fault_server):
    server = fault_server(lambda n, _: (200, reply("Robert Zemeckis"), 0))
    out = tmp_path / "r.jsonl"
    command = demo_eval(
        "llm-only",
        f"openai:{server.url}/v1#m",
        "--limit",
        "2",
        "--cache",
        "off",
        "--quiet",
        "--out",
        str(out),
    )
    with sole_writer(out):
        result = subprocess.run(command, check=False, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "is being written by kgviz eval" in result.stderr
    assert "Traceback" not in result.stderr and out.read_text() == ""


def test_rescore_leaves_a_file_a_run_still_writes(tmp_path):
    out = tmp_path / "r.jsonl"
    out.write_text('{"qid": "demo/dev/1", "method": "llm-only", "answer": "x", "answers": []}\n')
    before = out.read_text()
    command = [sys.executable, "-m", "kgviz", "rescore", str(out), "--dataset", "demo"]
    with sole_writer(out):
        result = subprocess.run(command, check=False, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "is being written by" in result.stderr
    assert "Traceback" not in result.stderr and out.read_text() == before


def test_transient_503s_leave_no_error_rows(tmp_path, fault_server):
    server = fault_server(lambda n, _: (503, b"busy", 0) if n < 2 else (200, reply("Tom Hanks"), 0))
    out = tmp_path / "r.jsonl"
    summary = run_eval(
        session_on(server.url), ["llm-only"], EvalPlan("dev", limit=3), out, progress=False
    )
    rows = read_results(out)
    assert summary["failed"] == 0 and len(rows) == 3
    assert all(row.get("error") is None for row in rows)


def test_failed_questions_stay_pending_and_a_dead_server_ends_the_run(tmp_path, fault_server):
    session = session_on("http://127.0.0.1:9")
    second = EvalPlan("dev", limit=3).select(session.dataset.questions("dev"))[1].question
    failing = {"on": True}
    server = fault_server(
        lambda n, body: (
            (500, b'{"error":"boom"}', 0)
            if failing["on"] and second in body
            else (200, reply("Tom Hanks"), 0)
        )
    )
    out = tmp_path / "r.jsonl"
    session = session_on(server.url)
    summary = run_eval(session, ["llm-only"], EvalPlan("dev", limit=3), out, progress=False)
    assert summary["failed"] == 1 and summary["n"] == 2 and len(read_results(out)) == 2
    failing["on"] = False
    summary = run_eval(session, ["llm-only"], EvalPlan("dev", limit=3), out, progress=False)
    assert summary["failed"] == 0 and len(read_results(out)) == 3  # the pending one, retried
    dead = fault_server(lambda n, _: (503, b"down", 0))
    with pytest.raises(KgvizError, match="3 questions in a row failed"):
        run_eval(
            session_on(dead.url),
            ["llm-only"],
            EvalPlan("dev", limit=8),
            tmp_path / "dead.jsonl",
            progress=False,
        )
    assert read_results(tmp_path / "dead.jsonl") == []


def test_eval_exits_non_zero_when_questions_failed(tmp_path, fault_server):
    server = fault_server(lambda n, _: (500, b"boom", 0) if n < 3 else (200, reply("Tom Hanks"), 0))
    out = tmp_path / "r.jsonl"
    result = subprocess.run(
        demo_eval(
            "llm-only",
            f"openai:{server.url}/v1#m",
            "--limit",
            "2",
            "--cache",
            "off",
            "--quiet",
            "--out",
            str(out),
        ),
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "KGVIZ_CACHE": str(tmp_path / "cache")},
    )
    assert result.returncode == 1, result.stderr
    assert "1 question(s) failed" in result.stderr and json.loads(result.stdout)["failed"] == 1
    assert len(read_results(out)) == 1


def test_a_tampered_model_ends_the_run_without_rows(tmp_path, monkeypatch):
    """The in-process backend over a model file whose bytes no longer hash as recorded."""
    import hashlib

    from kgviz.llm.errors import ModelIntegrityError
    from kgviz.llm.llamacpp_backend import LlamaCppBackend
    from kgviz.llm.model_files import ModelSpec

    monkeypatch.setenv("KGVIZ_MODELS", str(tmp_path))
    (tmp_path / "tiny.gguf").write_bytes(b"tampered")
    spec = ModelSpec(
        "tiny",
        "tiny.gguf",
        8,
        hashlib.sha256(b"original").hexdigest(),
        "none",
        "0",
        1,
        "a recorded model whose file was changed",
    )
    dataset = get_dataset("demo")
    session = Session(dataset, ReasonerContext(dataset, LlamaCppBackend(spec=spec)), "tampered")
    out = tmp_path / "r.jsonl"
    with pytest.raises(ModelIntegrityError, match="refusing to load it"):
        run_eval(session, ["llm-only"], EvalPlan("dev", limit=3), out, progress=False)
    assert read_results(out) == []
