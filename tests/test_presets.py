"""Presets and recorded settings: preset values, `kgviz methods --json`, `--preset` parsing,
option resolution, the GNN's reachability prior, SimGRAG's own-knowledge rule, rows and traces
that record their setting, and the report's refusal to pool rows of different settings."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest
import torch

from kgviz.checkpoints.store import CARD, card_sha256, save_checkpoint
from kgviz.cli import build_parser
from kgviz.datasets.base import QARecord
from kgviz.errors import KgvizError
from kgviz.eval.rows import result_row
from kgviz.llm.model_files import MODELS, verified_sha256
from kgviz.reasoners.base import option_help
from kgviz.reasoners.registry import method_names, method_spec
from kgviz.reasoners.simgrag import prompts
from kgviz.runs.run import judged_run
from kgviz.session import Session
from kgviz.trace import Trace
from kgviz.viz.report import load_rows

OWN_RULE = "answer from your own knowledge"
DEVIATIONS = Path(__file__).resolve().parents[1] / "docs" / "results.md"


@pytest.mark.parametrize("method", method_names())
def test_every_method_has_a_tuned_and_a_paper_preset_of_valid_values(method):
    spec = method_spec(method)
    assert [preset.name for preset in spec.presets] == ["tuned", "paper"]
    assert spec.preset("tuned").values == {}  # tuned is the defaults
    config = spec.config_class()
    paper = spec.preset("paper")
    config.check_types(method, dict(paper.values))
    config(**paper.values).check_ranges(method)
    assert paper.description
    helps = {item.name: option_help(item) for item in fields(config)}
    deviations = DEVIATIONS.read_text(encoding="utf-8").split("### Every deviation")[1]
    for name in paper.values:  # every option the presets differ in has its row of effects
        assert helps[name], f"{method}.{name} has no help"
        table = [row.split("|") for row in deviations.splitlines() if row.startswith("| ")]
        rows = ["|".join(cells) for cells in table if method in cells[1] or "all but" in cells[1]]
        assert any(f"`{name}" in row for row in rows), f"{method}.{name}: no row in {DEVIATIONS}"


def test_the_paper_presets_set_what_the_papers_describe():
    assert method_spec("gnnrag").preset("paper").values == {
        "max_nodes": 2000,
        "max_candidates": 1000,
        "paths_per_candidate": 100,
        "max_paths": 100,
        "reach_prior": False,
        "answer_reask": False,
        "answer_list": False,
        "gnn": "paper",
    }
    assert method_spec("subgraphrag").preset("paper").values["top_k"] == 100
    assert method_spec("grag").preset("paper").values == {
        "top_n": 10,
        "description_tokens": 1500,
        "description": "triples",
        "answer_reask": False,
        "answer_list": False,
    }
    for method in ("simgrag", "gnnrag", "subgraphrag", "grag"):  # the papers ask once, in prose
        assert method_spec(method).preset("paper").values["answer_reask"] is False
        assert method_spec(method).preset("paper").values["answer_list"] is False
    for method in ("kaping", "llm-only"):
        paper = method_spec(method).preset("paper")
        assert paper.values == {} and "same as tuned" in paper.description.lower()
    for method in ("simgrag", "gnnrag", "subgraphrag", "grag"):
        assert "Qwen2.5-Coder-1.5B" in method_spec(method).preset("paper").description


def test_methods_json_lists_both_simgrag_presets_differing_as_stated():
    done = subprocess.run(
        [sys.executable, "-m", "kgviz", "methods", "simgrag", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    (entry,) = json.loads(done.stdout)
    presets = {preset["name"]: preset for preset in entry["presets"]}
    tuned, paper = presets["tuned"], presets["paper"]
    changed = {k for k in tuned["options"] if tuned["options"][k] != paper["options"][k]}
    switches = {"relation_hint", "reask_lost_topics", "pattern_checks", "own_knowledge"}
    assert changed == switches | {"answer_format", "answer_reask", "answer_list"}
    assert not any(paper["options"][k] for k in switches)
    assert all(tuned["options"][k] for k in switches)
    assert (tuned["options"]["answer_format"], paper["options"]["answer_format"]) == (
        "json",
        "paper",
    )
    assert "12 examples" in paper["description"] and "1.5B" in paper["description"]
    assert paper["values"] == {
        **{k: False for k in switches},
        "relation_vocabulary": False,  # off in both: explicit in the paper's
        "answer_format": "paper",
        "answer_reask": False,
        "answer_list": False,
    }
    assert tuned["values"] == {}


def test_preset_flags_parse_and_unknown_presets_are_refused(capsys):
    parser = build_parser()
    assert parser.parse_args(["ask", "who", "--preset", "paper"]).preset == "paper"
    assert parser.parse_args(["ask", "who"]).preset == "tuned"
    evaluate = ["eval", "--dataset", "demo", "--split", "dev", "--method", "kaping", "--out", "x"]
    assert parser.parse_args([*evaluate, "--preset", "paper"]).preset == "paper"
    assert parser.parse_args(["report", "r.jsonl", "--allow-mixed"]).allow_mixed
    with pytest.raises(SystemExit):
        parser.parse_args(["ask", "who", "--preset", "best"])
    assert "invalid choice: 'best'" in capsys.readouterr().err


def test_explicit_options_win_over_the_preset():
    options = Session.options_of("subgraphrag", "paper", {"top_k": 30})
    paper = {"max_candidates": 1_000_000, "hub_degree": 100_000_000, "answer_reask": False}
    assert options == {"top_k": 30, **paper, "answer_list": False}
    assert Session.options_of("subgraphrag", "tuned", {}) == {}
    with pytest.raises(KgvizError, match="subgraphrag has no preset 'best'; its presets: tuned"):
        Session.options_of("subgraphrag", "best", {})


def test_simgrag_answer_prompt_keeps_the_own_knowledge_rule_only_when_asked():
    graphs = [[("Heat", "directed by", "Michael Mann")]]
    kept = prompts.answer_messages("qa", "who directed Heat", graphs)[0]["content"]
    dropped = prompts.answer_messages("qa", "who directed Heat", graphs, False)[0]["content"]
    assert OWN_RULE in kept and OWN_RULE not in dropped
    assert kept.replace(prompts.OWN_KNOWLEDGE_RULE, "") == dropped
    assert dropped.endswith(prompts.ANSWER_FORMAT)


def test_card_hash_is_the_sha256_of_the_card_file(tmp_path):
    card = {"format": 2, "method": "gnnrag"}
    save_checkpoint(tmp_path, {"w": torch.zeros(2)}, card)
    written = json.loads((tmp_path / CARD).read_text())
    assert card_sha256(written) == hashlib.sha256((tmp_path / CARD).read_bytes()).hexdigest()
    assert card_sha256(written) != card_sha256({**written, "method": "grag"})


def test_the_offline_models_hash_is_its_verified_one():
    spec = MODELS["qwen2.5-coder-1.5b"]
    assert verified_sha256("llamacpp", spec.name) == spec.sha256
    assert verified_sha256("hf", spec.name) == spec.sha256
    assert verified_sha256("ollama", spec.name) == ""


SETTING = {
    "preset": "paper",
    "options": {"top_k": 100, "hops": 3},
    "code": "0.1.0+gabc.dirty",
    "llm": "llamacpp:qwen2.5-coder-1.5b",
    "llm_sha256": "f" * 64,
    "card_sha256": "c" * 64,
}


def test_rows_and_saved_traces_record_the_runs_setting(tmp_path):
    record = QARecord("who directed Heat", ("Michael Mann",), ("Heat",), "q1", hops=1)
    trace = Trace("subgraphrag", record.question, answer="Michael Mann")
    trace.answers, trace.setting = ["Michael Mann"], dict(SETTING)
    row = result_row(judged_run(trace, record))
    assert {key: row[key] for key in SETTING if key != "llm"} == {  # type: ignore[literal-required]
        key: value for key, value in SETTING.items() if key != "llm"
    }
    trace.save(tmp_path / "t.json")
    assert Trace.load(tmp_path / "t.json").setting == SETTING
    assert trace.to_json()["setting"] == SETTING


def write_rows(path, *rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def row(qid, **fields):
    base = {"method": "subgraphrag", "qid": qid, "hops": 1, "hit1": True, "hit": True, "f1": 1.0}
    return {**base, **fields}


def test_report_labels_presets_apart_and_refuses_mixed_settings_in_one_line(tmp_path):
    recorded = {k: v for k, v in SETTING.items() if k not in ("preset", "llm")}
    tuned = row("q1", preset="tuned", **recorded)
    paper = row("q1", preset="paper", **{**recorded, "options": {"top_k": 100}})
    labels = {r["method"] for r in load_rows([write_rows(tmp_path / "a.jsonl", tuned, paper)])}
    assert labels == {"subgraphrag", "subgraphrag [paper]"}
    old = row("q2")  # a row from before settings were recorded loads
    assert len(load_rows([write_rows(tmp_path / "old.jsonl", old, row("q3"))])) == 2
    for field, other in (("code", "0.1.0+gdef"), ("llm_sha256", "e" * 64)):
        mixed = write_rows(tmp_path / f"{field}.jsonl", tuned, {**tuned, "qid": "q2", field: other})
        with pytest.raises(KgvizError) as refused:
            load_rows([mixed])
        message = str(refused.value)
        assert "\n" not in message and "subgraphrag: rows of 2" in message
        assert "--allow-mixed" in message
        assert len(load_rows([mixed], allow_mixed=True)) == 2
    with pytest.raises(KgvizError, match="code version"):
        load_rows([write_rows(tmp_path / "new_and_old.jsonl", tuned, old)])


# A measured figure: a score, a p-value, a count of questions it was measured on.
FIGURE = re.compile(
    r"hits@1|\bp = |held-aside|\bF1\b|recall (?:of |at )?\d|\b\d[\d,]* questions\b|\bmeasured\b"
)


@pytest.mark.parametrize("method", method_names())
def test_option_help_and_presets_say_what_they_do_not_what_they_scored(method):
    """Figures live in docs/results.md (which option help may name), not in code: help says
    what an option does, and the lab shows it on every Ask."""
    spec = method_spec(method)
    texts = {f"--set {f.name}": option_help(f) for f in fields(spec.config_class())}
    texts |= {f"--preset {preset.name}": preset.description for preset in spec.presets}
    figures = {name: FIGURE.findall(text) for name, text in texts.items() if FIGURE.search(text)}
    assert figures == {}
