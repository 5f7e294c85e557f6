"""A batch (the lab's Batch tab): its results file, its rows and the shell commands that give
the same, built by hand (no LLM call)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from kgviz.cli import build_parser
from kgviz.datasets.base import QARecord
from kgviz.eval.batch import Batch
from kgviz.eval.plan import EvalPlan

PLAN = EvalPlan("dev", limit=20, sample_seed=0, hops=frozenset({2, 3}), qtypes=frozenset({"a b"}))
RECORDS = [QARecord(f"q{i}", ("x",), qid=f"demo-{i}", hops=2, qtype="a b") for i in range(3)]


def batch(preset: str = "tuned") -> Batch:
    return Batch("demo", "llamacpp:qwen2.5-coder-1.5b", ("simgrag", "kaping"), PLAN, preset)


def test_the_commands_parse_as_the_eval_and_report_the_batch_runs(tmp_path: Path):
    out = tmp_path / "a folder" / "rows.jsonl"
    evaluate, report = batch("paper").commands(out, "local").splitlines()
    args = build_parser().parse_args(shlex.split(evaluate)[1:])
    assert (args.dataset, args.split, args.limit, args.sample) == ("demo", "dev", 20, 0)
    assert set(args.hops) == {2, 3} and args.qtype == ("a b",) and args.preset == "paper"
    assert args.method == ["simgrag,kaping"] and args.keep_traces and args.out == str(out)
    assert shlex.split(report) == ["kgviz", "report", str(out)]
    assert "--preset" not in batch().commands(out, "local")


def test_one_results_file_per_dataset_split_llm_and_preset(tmp_path: Path):
    tuned, paper = batch().results_file(tmp_path), batch("paper").results_file(tmp_path)
    assert tuned.parent == tmp_path / "batches" and tuned != paper
    assert paper.name.endswith("-paper.jsonl") and "-dev-" in tuned.name


def test_rows_are_the_batchs_own_in_method_then_question_order(tmp_path: Path):
    path = tmp_path / "rows.jsonl"
    rows = [
        {"method": method, "qid": qid, "hit1": True, "f1": 1.0}
        for qid in ("demo-2", "demo-9", "demo-0")
        for method in ("kaping", "llm-only", "simgrag")
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    found = batch().rows(path, RECORDS)
    assert [(r["method"], r["qid"]) for r in found] == [
        ("simgrag", "demo-0"),
        ("simgrag", "demo-2"),
        ("kaping", "demo-0"),
        ("kaping", "demo-2"),
    ]
