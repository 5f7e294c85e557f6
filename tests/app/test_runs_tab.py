"""Runs you keep, in the lab: every run the lab makes is saved in the run store, the Runs tab
lists the store (sort, filter, tags and notes), opens one run or two side by side with their
diff, and regenerates a run on edited evidence.

As in test_app.py everything is real: the demo KG, the reasoners and the offline model behind
the response cache (conftest.py). The planted-director case follows
tests/runs/test_regenerate.py, where the real model is checked to follow the planted triple.
The error-handling tests fail before any LLM call; no test replaces the LLM.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from kgviz.app import Lab
from kgviz.app.run_table import COLUMNS, row_html
from kgviz.app.run_view import RunView
from kgviz.runs.diff import diff_runs
from kgviz.runs.run import judged_run
from kgviz.runs.store import RunStore
from kgviz.trace import Trace
from kgviz.viz.diff_view import CELL, CHANGES, ONLY_A, SAME, run_diff_html
from kgviz.viz.escape import esc
from tests.app.lab_helpers import FORREST, HOSTILE, kept_runs, make_lab
from tests.viz.graph_pages import vis_data

DIRECTOR = ("Forrest Gump", "directed_by", "Robert Zemeckis")
PLANTED = ("Forrest Gump", "directed_by", "Ada Lovelace")


def ask(app: Lab, method: str, **options: object) -> None:
    app.controls.question.value = FORREST
    app.ask_panel.method.value = method
    for name, value in options.items():
        app.ask_panel.form.fields[name].value = value
    app.ask()


def test_every_lab_run_is_kept_and_listed_after_a_restart(demo_sessions, tmp_path, monkeypatch):
    """Ask and Compare runs land in KGVIZ_RUNS; a new process lists each with its verdict."""
    monkeypatch.setenv("KGVIZ_RUNS", str(tmp_path / "runs"))
    app = Lab("demo", "auto", "off", ["kaping", "llm-only"], "kaping", demo_sessions(), [])
    ask(app, "kaping")
    app.compare()
    runs = kept_runs(app)
    listed = subprocess.run(
        [sys.executable, "-m", "kgviz", "runs", "list", "--json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    entries = json.loads(listed.stdout)
    assert [e["method"] for e in entries] == ["kaping", "llm-only", "kaping"]  # registry order
    assert [e["id"] for e in entries] == [e.id for e in app.kept.entries()]
    for entry, run in zip(entries, runs, strict=True):
        score = run.outcome.score
        assert entry["question"] == FORREST and entry["dataset"] == "demo"
        assert (entry["hits1"], entry["hit"]) == (score.hit1, score.hit)
        assert entry["f1"] == round(score.f1, 4) and entry["llm"].startswith("llamacpp:")
    assert (tmp_path / "runs" / "runs" / f"{entries[0]['id']}.json").is_file()


def test_a_store_that_cannot_be_written_is_a_warning_not_a_lost_answer(demo_sessions, tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    app = make_lab(demo_sessions, store=RunStore(blocked))
    ask(app, "kaping")
    assert esc(app.ask_panel.trace.answer) in app.ask_panel.view.answer.value
    assert "the run was not kept" in app.controls.status.value


def test_the_run_table_sorts_filters_annotates_and_opens_one_or_two(demo_sessions, tmp_path):
    store = RunStore(tmp_path / "runs")
    app = make_lab(demo_sessions, store=store)
    ask(app, "kaping")
    ask(app, "kaping", top_k=3)
    ask(app, "llm-only")
    table = app.runs.table
    assert len(table.shown()) == 3 and table.shown()[0].method == "llm-only"  # newest first
    table.sort.value, table.descending.value = "method", False
    assert [e.method for e in table.shown()] == ["kaping", "kaping", "llm-only"]
    table.filter.value = "method=kaping top_k=3"
    (k3,) = table.shown()
    assert k3.options == {"top_k": 3} and len(table.rows.children) == 1
    table.filter.value = "method=llm"
    assert [e.method for e in table.shown()] == ["llm-only"]
    table.filter.value = ""

    later = make_lab(demo_sessions, store=store)  # a new lab (a restart) lists earlier runs
    table = later.runs.table
    first = table.shown()[-1]  # the oldest: kaping, defaults
    cells = {column.name: column.text(first) for column in COLUMNS}
    assert cells["preset"] == "tuned" and cells["grounded"] == "yes"
    assert cells["verdict"] == ("right" if first.hits1 else "listed" if first.hit else "wrong")
    assert cells["cached"] in {"no", f"all {first.llm_calls}"} and first.llm_calls >= 1
    assert store.load(first.id).finished == first.finished  # when it was made, not opened
    table.select([first.id])
    notes, view, what_if = later.runs.shown.children
    run = store.load(first.id)
    assert notes is later.runs.notes and what_if is later.runs.what_if
    assert isinstance(view, RunView) and esc(run.trace.answer) in view.answer.value
    assert "triples" in view.stages.titles and len(what_if.drop.options) == len(run.trace.evidence)
    later.runs.tags.value, later.runs.note.value = "keep, baseline", "the <b>default</b> k"
    later.runs.save.click()
    assert store.entry(first.id).tags == ["baseline", "keep"]
    assert store.entry(first.id).note == "the <b>default</b> k"
    table.filter.value = "tags=keep"
    assert [e.id for e in table.shown()] == [first.id]
    assert esc("the <b>default</b> k") in table.rows.children[0].children[1].value

    table.filter.value = "method=kaping"
    table.select([first.id, k3.id])
    (pair,) = later.runs.shown.children
    diff, graph, columns = pair.children
    left, right = (column.children[1] for column in columns.children)
    assert "defaults" in left.heading.value and "top_k=3" in right.heading.value
    left.stages.selected_index = left.stages.titles.index("evidence")  # synced tabs
    assert right.stages.titles[right.stages.selected_index] == "evidence"
    right.stages.selected_index = right.stages.titles.index("prompt")
    assert left.stages.titles[left.stages.selected_index] == "prompt"
    expected = diff_runs(store.load(first.id), store.load(k3.id))
    assert len(expected.evidence.only_a) == len(run.trace.evidence) - 3
    assert f"{len(expected.evidence.only_a)} only in A (−)" in diff.value
    assert "<b>evidence</b>: 3 in both" in diff.value and "top_k" in diff.value
    _, edges = vis_data(graph.value)  # both evidences in one graph, A's own triples marked
    only_a = [e for e in edges if e["title"].endswith("only in A (−)")]
    assert len(only_a) == len(expected.evidence.only_a) and len(edges) == len(run.trace.evidence)
    assert {e["color"] for e in only_a} == {ONLY_A} and "only in A (−)" in graph.value
    assert view.comm is None  # the single run's view was closed


def test_what_if_regenerates_on_edited_evidence_and_shows_the_change(demo_sessions, tmp_path):
    """The issue's case in the lab: SimGRAG's director removed, another planted, Regenerate."""
    store = RunStore(tmp_path / "runs")
    app = make_lab(demo_sessions, store=store)
    ask(app, "simgrag")
    (parent,) = store.entries()
    app.runs.table.select([parent.id])
    what_if = app.runs.what_if
    what_if.drop.value = (what_if.evidence.index(DIRECTOR),)
    what_if.add.value = " | ".join(PLANTED)
    app.runs.regenerate()
    child = store.entries()[-1]
    assert child.parent == parent.id and child.method == "simgrag"
    assert child.edit == {"dropped": [list(DIRECTOR)], "added": [list(PLANTED)]}
    assert app.runs.table.ticked == [parent.id, child.id]
    regenerated = store.load(child.id)
    assert PLANTED in regenerated.trace.evidence and DIRECTOR not in regenerated.trace.evidence
    prompt = regenerated.trace.llm_calls[-1].messages[-1]["content"]
    assert "Ada Lovelace" in prompt  # the model was shown the planted director
    (pair,) = app.runs.shown.children
    diff = pair.children[0].value
    right = pair.children[2].children[1].children[1]  # B's run view: its edit is a stage tab
    assert isinstance(right, RunView) and "edit" in right.stages.titles
    assert f"− {' | '.join(DIRECTOR)}" in diff and f"+ {' | '.join(PLANTED)}" in diff
    for name, entry, run in (("A", parent, store.load(parent.id)), ("B", child, regenerated)):
        verdict = (entry.hits1, entry.hit, entry.f1)
        answers = esc(", ".join(run.trace.answers) or "(none)")
        cells = [answers, *("yes" if v else "no" for v in verdict[:2]), str(verdict[2])]
        assert f"<td {CELL}>{name}</td>" in diff
        assert "".join(f"<td {CELL}>{cell}</td>" for cell in cells) in diff
    before, after = (", ".join(r.trace.answers) for r in (store.load(parent.id), regenerated))
    assert esc(f"regenerated: {before} → {after}") in app.controls.status.value


def test_regenerate_under_a_filter_shows_both_runs_and_no_tick_hides(demo_sessions, tmp_path):
    """A filter that would hide the regenerated run is cleared, so A and B are both in sight;
    a filter that hides a ticked run unticks it, and the view follows the ticks."""
    store = RunStore(tmp_path / "runs")
    app = make_lab(demo_sessions, store=store)
    ask(app, "simgrag")
    (parent,) = store.entries()
    table = app.runs.table
    table.filter.value = f"id={parent.id}"
    table.select([parent.id])
    what_if = app.runs.what_if
    what_if.drop.value = (what_if.evidence.index(DIRECTOR),)
    app.runs.regenerate()
    child = store.entries()[-1]
    assert table.filter.value == "" and table.ticked == [parent.id, child.id]
    assert {e.id for e in table.shown()} == {parent.id, child.id}
    table.filter.value = f"id={parent.id}"  # hides B: it is unticked, A opens on its own
    assert table.ticked == [parent.id]
    notes, view, shown_what_if = app.runs.shown.children
    assert notes is app.runs.notes and shown_what_if is what_if and isinstance(view, RunView)


def test_leave_one_out_says_what_it_will_cost_then_finds_the_triples_that_matter(
    demo_sessions, tmp_path
):
    store = RunStore(tmp_path / "runs")
    app = make_lab(demo_sessions, store=store)
    ask(app, "simgrag")
    (parent,) = store.entries()
    app.runs.table.select([parent.id])
    what_if = app.runs.what_if
    run = app.kept.run(parent.id)
    each = run.trace.llm_calls[-1].latency_s
    assert f"{len(run.trace.evidence)} regenerations" in what_if.estimate.value
    other = next(t for t in run.trace.evidence if t != DIRECTOR)
    what_if.drop.value = tuple(what_if.evidence.index(t) for t in (DIRECTOR, other))
    what_if.limit.value = 1
    assert "1 regeneration (the first 1 of 2 triples)" in what_if.estimate.value
    assert f"of about {each:.1f} s each" in what_if.estimate.value
    what_if.limit.value = 2
    app.runs.leave_one_out()
    children = store.entries()[1:]
    assert [child.parent for child in children] == [parent.id, parent.id]
    left_out = sorted((DIRECTOR, other), key=what_if.evidence.index)
    assert [child.edit for child in children] == [
        {"dropped": [list(t)], "added": []} for t in left_out
    ]
    shown = what_if.probes.value
    assert "2 of 2 triples left out" in shown
    changed = 0
    for child, triple in zip(children, left_out, strict=True):
        answers = store.load(child.id).trace.answers
        differs = {a.casefold() for a in answers} != {a.casefold() for a in run.trace.answers}
        changed += differs
        row = f"<td {CELL}>{esc(' | '.join(triple))}</td><td {CELL}>{esc(', '.join(answers))}"
        assert f"{row}</td><td {CELL}>{'changed' if differs else 'same'}</td>" in shown
    assert f"the answer changed without {changed}" in shown
    assert f"changed without {changed} of 2 triples" in app.controls.status.value
    _, edges = vis_data(what_if.probes_graph.value)  # each triple left out marked on the graph
    marked = {e["title"].split("\n")[0]: e for e in edges if e.get("width") == 4}
    assert len(edges) == len(run.trace.evidence) and len(marked) == 2
    for child, (head, relation, tail) in zip(children, left_out, strict=True):
        answers = store.load(child.id).trace.answers
        differs = {a.casefold() for a in answers} != {a.casefold() for a in run.trace.answers}
        mark = CHANGES if differs else SAME
        edge = marked[f"{head} —{relation}→ {tail}"]
        assert edge["color"] == mark.colour and edge["title"].endswith(mark.label)


def test_a_what_if_without_a_change_or_with_a_bad_line_says_so(demo_sessions, tmp_path):
    """Both fail before any LLM call: the status says what to fix, nothing is kept."""
    store = RunStore(tmp_path / "runs")
    app = make_lab(demo_sessions, store=store)
    ask(app, "kaping")
    app.runs.table.select([store.entries()[0].id])
    app.runs.regenerate()
    assert "select triples to remove or type triples to add" in app.controls.status.value
    app.runs.what_if.add.value = "Forrest Gump | directed_by"
    app.runs.regenerate()
    assert esc("expected 'head | relation | tail'") in app.controls.status.value
    assert len(store.entries()) == 1


def test_run_labels_and_diffs_stay_text():
    """Hand-made traces (no LLM): a hostile name in the table and in the diff is escaped."""
    cells = [HOSTILE] * len(COLUMNS)
    assert "<img" not in row_html(cells) and row_html(cells).count(esc(HOSTILE)) == 2 * len(cells)
    a = Trace(method="kaping", question=HOSTILE, evidence=[(HOSTILE, "r", "t")], answers=[HOSTILE])
    b = Trace(method="kaping", question=HOSTILE, evidence=[("h", "r", HOSTILE)], answers=["x"])
    shown = run_diff_html(diff_runs(judged_run(a), judged_run(b)), (HOSTILE, "B"))
    assert "<img" not in shown and esc(HOSTILE) in shown


def test_runs_kept_on_disk_open_without_a_session(tmp_path: Path):
    """A run loaded from the store with no session open is drawn without its graph."""
    trace = Trace(method="kaping", question="q", evidence=[("h", "r", "t")], answer="t")
    trace.answers = ["t"]
    store = RunStore(tmp_path)
    entry = store.save(judged_run(trace))
    app = Lab("demo", "auto", "off", ollama=[], store=store)
    app.runs.table.select([entry.id])
    assert app.kept.run(entry.id).kg is None
    assert isinstance(app.runs.shown.children[1], RunView)
    bare = store.save(judged_run(Trace(method="llm-only", question="q", answer="t")))
    app.runs.refresh()
    app.runs.table.select([bare.id])
    app.runs.leave_one_out()  # fails before any session is opened
    assert "the run has no evidence to leave out" in app.controls.status.value
