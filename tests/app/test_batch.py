"""Batch compare in the lab: methods over sampled questions, run by the eval runner, shown as
`kgviz report`'s tables, the paired tests and a per-question grid whose cells open the run.

As in test_app.py everything is real: the demo KG, the reasoners and the offline model behind
the response cache (conftest.py). The shell's `kgviz eval` in the first test runs in this
process with its own session and LLM (the same model file): the replies the lab's batch
recorded are replayed to it from the response cache, as they would be for a user.
"""

from __future__ import annotations

import html
import shlex

import pandas as pd

from kgviz.app.batch import BatchPanel
from kgviz.cli import main
from kgviz.datasets import get_dataset
from kgviz.eval.results_file import read_results
from kgviz.viz.report import load_rows, report_tables, tables_html
from tests.app.lab_helpers import make_lab

METHODS = ["simgrag", "llm-only", "kaping"]
TIMES = ["median seconds"]  # what answering took, measured anew by each run


def planned(panel: BatchPanel, methods: list[str], count: int, seed: int = 0) -> None:
    panel.methods.tick(methods)
    panel.count.value, panel.seed.value = count, seed


def shell_command(panel: BatchPanel, out: str) -> list[str]:
    """The `kgviz eval` the panel names, writing to `out` instead of the batch's file."""
    shown = html.unescape(panel.where.value.split("<pre")[1].split(">", 1)[1])
    words = shlex.split(shown.split("\n")[0])
    words[words.index("--out") + 1] = out
    assert words[0] == "kgviz"
    return words[1:]


def comparable(tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    return {name: table.drop(columns=TIMES, errors="ignore") for name, table in tables.items()}


def test_a_batch_gives_the_tables_of_kgviz_eval_and_report(demo_sessions, tmp_path, monkeypatch):
    """3 methods × 5 demo questions in the lab, then the command it shows run in a shell: the
    same rows, so the same tables (hits@1 with intervals, per hop, attribution, McNemar), but
    for the seconds each run measures anew."""
    monkeypatch.setenv("KGVIZ_RUNS", str(tmp_path / "runs"))
    app = make_lab(demo_sessions)
    panel = app.batch
    planned(panel, METHODS, 5)
    panel.run()
    assert "batch done" in app.controls.status.value
    assert len(panel.rows) == 15 and {row["method"] for row in panel.rows} == set(METHODS)
    lab_tables = report_tables(panel.rows)
    assert set(lab_tables) == {
        "Hits@1 per method and hop",
        "Per method and hop",
        "Where the misses failed",
        "Paired differences",
    }
    for part in tables_html(lab_tables, level=4):
        assert part in panel.tables.value  # the panel shows these very tables

    out = tmp_path / "shell.jsonl"
    assert main(shell_command(panel, str(out))) == 0
    assert main(["report", str(out), "--markdown", str(tmp_path / "report.md")]) == 0
    shell_tables = report_tables(load_rows([out]))
    for name, table in comparable(lab_tables).items():
        pd.testing.assert_frame_equal(table, comparable(shell_tables)[name], check_exact=False)
    assert (tmp_path / "report.md").read_text().count("|") > 100


def test_a_grid_cell_opens_its_run(demo_sessions, tmp_path):
    """Each (question, method) cell says hit or miss, its answers on hover, and opens the run
    kept in the store, every stage."""
    app = make_lab(demo_sessions)
    panel = app.batch
    planned(panel, ["llm-only", "kaping"], 3)
    panel.run()
    grid = panel.grid.children[0].children
    assert len(grid) == 3 * 4  # a heading row, then a question and two cells per question
    first = panel.rows[0]
    cell = grid[4]  # the first question's llm-only cell
    assert cell.description == ("✓" if first["hit1"] else "✗")
    assert ", ".join(first["answers"]) in cell.tooltip or "(no answer)" in cell.tooltip
    cell.click()
    opened = panel.opened.children[0]
    assert panel.records[0].question in opened.heading.value
    assert [entry.id for entry in app.kept.entries()].count(first["run"]) == 1


def test_a_batch_shows_its_current_question_and_live_reply_as_it_goes(demo_sessions):
    """As each question starts the panel names it and its method; as each LLM call starts it
    shows the call's stage, and the reply as it is written; after, each question's time and an
    estimate of the time left, and the last question stays in view."""
    app = make_lab(demo_sessions)
    panel = app.batch
    planned(panel, ["llm-only", "kaping"], 2)
    progress, begun, calls, texts = panel.progress, [], [], []
    begin, call, text = progress.begin, progress.call, progress.text

    def began(method, record):  # what a user sees as a question starts
        begin(method, record)
        begun.append((method, record.question, progress.current.value))

    def called(stage):
        call(stage)
        calls.append(progress.live.value)

    def wrote(chunk):
        text(chunk)
        texts.append(chunk)

    progress.begin, progress.call, progress.text = began, called, wrote  # type: ignore[method-assign]
    panel.run()
    assert [(m, q) for m, q, _ in begun] == [(r["method"], r["question"]) for r in panel.rows]
    for number, (method, question, current) in enumerate(begun, 1):
        assert f"now: {method} on “{html.escape(question)}” (question {number} of 4)" in current
    assert len(calls) >= 4 and all("generation" in c or "reask" in c for c in calls)
    assert "".join(texts)  # the replies reached the panel as they came
    assert progress.recent.value.count(" s") >= 4 and "s a question" not in progress.line.value
    assert f"last: {panel.rows[-1]['method']} on" in progress.current.value  # kept in view
    assert progress.live.value


def test_stop_keeps_what_was_answered_and_the_next_run_resumes(demo_sessions, tmp_path):
    """Stop after the first answer: the status says stopped, the rows written stay and are
    shown; pressing Run again answers only the rest."""
    app = make_lab(demo_sessions)
    panel = app.batch
    planned(panel, ["llm-only"], 3, seed=7)
    heard = panel.progress.add

    def stop_after_first(row):
        heard(row)
        panel.stop.click()  # what a user's press does, between two questions

    panel.progress.add = stop_after_first  # type: ignore[method-assign]
    panel.run()
    assert "stopped" in app.controls.status.value
    written = read_results(next((app.kept.store.root / "batches").glob("*.jsonl")))
    assert len(written) == 1 and len(panel.rows) == 1
    panel.progress.add = heard  # type: ignore[method-assign]
    panel.run()
    assert "batch done" in app.controls.status.value
    assert panel.progress.written == 2 and len(panel.rows) == 3


def test_filters_offer_the_splits_hops_and_types_and_select_by_them(demo_sessions):
    app = make_lab(demo_sessions)
    panel = app.batch
    questions = get_dataset("demo").questions("dev")
    assert panel.split.value == "dev"
    assert [value for _, value in panel.hops.options] == [1, 2, 3]
    assert set(panel.qtypes.options) == {q.qtype for q in questions}
    panel.hops.value = (2,)
    panel.qtypes.value = ("movie_to_director_to_movie", "actor_to_movie_to_year")
    panel.count.value = 20
    chosen = panel.plan().select(questions)
    assert {q.qtype for q in chosen} == set(panel.qtypes.value) and len(chosen) == 2
    assert "--hops 2 --qtype actor_to_movie_to_year,movie_to_director_to_movie" in (
        panel.plan().describe()
    )


def test_nothing_ticked_or_nothing_selected_is_one_line(demo_sessions):
    app = make_lab(demo_sessions)
    panel = app.batch
    panel.methods.tick([])
    panel.run()
    assert "tick at least one method" in app.controls.status.value
    planned(panel, ["llm-only"], 5)
    panel.hops.value = (1,)
    panel.qtypes.value = ("movie_to_director_to_movie",)  # a 2-hop type: none is 1-hop
    panel.run()
    assert "no question of demo is selected by --split dev --hops 1" in (app.controls.status.value)
