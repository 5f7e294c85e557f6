"""The Runs tab: every kept run (this session's and earlier ones) in a table. Tick one to open
it in its stage tabs, tag and annotate it and try a what-if on its evidence; tick two to see
them side by side under their answer and evidence diff (and both evidences in one graph, what
differs marked); leave each evidence triple out in turn to see which ones the answer rests on,
marked on the evidence graph."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import ipywidgets as widgets

from kgviz.app.controls import Controls
from kgviz.app.kept import KeptRuns
from kgviz.app.render import close_tree, control_row, message, sync_tabs
from kgviz.app.run_table import RunTable
from kgviz.app.run_view import RunView
from kgviz.app.what_if import WhatIf
from kgviz.errors import InputError, KgvizError, RunStoreError
from kgviz.runs.diff import diff_runs
from kgviz.runs.leave_one_out import Probe, leave_one_out, time_left
from kgviz.runs.run import Run
from kgviz.viz.diff_view import diff_graph, probes_graph, probes_html, run_diff_html
from kgviz.viz.escape import esc

NAMES = ("A", "B")  # the two runs side by side, first ticked first


def side_label(name: str, run_id: str) -> str:
    return f'<div style="font:13px sans-serif"><b>{esc(name)}</b> · {esc(run_id)}</div>'


class RunsPanel(widgets.VBox):
    """The run table, then for one ticked run its tags and note, its view and what-if; for two,
    their diff and views side by side."""

    def __init__(self, kept: KeptRuns, controls: Controls) -> None:
        self.kept, self.controls = kept, controls
        self.table = RunTable()
        self.tags = widgets.Text(description="tags", placeholder="comma-separated")
        self.note = widgets.Text(description="note", layout=widgets.Layout(width="420px"))
        self.save = widgets.Button(
            description="Save tags and note", icon="tag", layout=widgets.Layout(width="auto")
        )
        self.notes = control_row([self.tags, self.note, self.save])
        self.what_if = WhatIf()
        self.said = widgets.HTML()
        self.shown = widgets.VBox(layout=widgets.Layout(width="100%"))
        self.table.on_select = self.show_selected
        self.kept.on_change = self.refresh
        self.save.on_click(lambda _: self.annotate())
        self.what_if.button.on_click(lambda _: self.regenerate(background=True))
        self.what_if.leave_out.on_click(lambda _: self.leave_one_out(background=True))
        super().__init__([self.table, self.said, self.shown])
        self.add_class("kgviz-runs")
        self.refresh()

    def refresh(self) -> None:
        """List the store's runs again (after a save, an annotation or another process's runs)."""
        try:
            self.table.show(self.kept.entries())
        except KgvizError as error:
            self.said.value = message(str(error), "error")

    def show_selected(self) -> None:
        """Show what the ticks ask for: one run, two side by side, or nothing."""
        ticked = self.table.ticked
        self.said.value = ""
        try:
            if len(ticked) == 1:
                self._show_one(ticked[0])
            elif len(ticked) == 2:
                runs = [self.kept.run(run_id) for run_id in ticked]
                self.show_pair(runs, ticked)
            else:
                if ticked:
                    self.said.value = message("tick one run to open it, two to compare them")
                self._show([])
        except KgvizError as error:
            self.said.value = message(str(error), "error")
            self._show([])

    def show_pair(self, runs: Sequence[Run], labels: Sequence[str]) -> None:
        """`runs` A and B (named by `labels`) under their diff, side by side."""
        a, b = runs
        differences = diff_runs(a, b)
        diff = widgets.HTML(run_diff_html(differences, NAMES))
        diff.add_class("kgviz-run-diff")
        graph = widgets.HTML(diff_graph(differences, (a, b), NAMES))
        graph.add_class("kgviz-diff-graph")
        views = [RunView.of(run) for run in runs]
        sync_tabs([view.stages for view in views])  # both show the same stage
        columns = [
            widgets.VBox(
                [widgets.HTML(side_label(name, label)), view],
                layout=widgets.Layout(width="50%", overflow="auto"),
            )
            for name, label, view in zip(NAMES, labels, views, strict=True)
        ]
        self._show([widgets.VBox([diff, graph, widgets.HBox(columns)])])

    def annotate(self) -> None:
        """Save the tags and note of the one ticked run."""
        (run_id,) = self.table.ticked
        tags = [tag.strip() for tag in self.tags.value.split(",") if tag.strip()]
        try:
            self.kept.annotate(run_id, tags, self.note.value.strip())
        except KgvizError as error:
            self.said.value = message(str(error), "error")
            return
        self.said.value = message("tags and note saved", "ok")

    def regenerate(self, background: bool = False) -> None:
        """Answer the ticked run's question again on its evidence as edited in what-if (this
        lab's LLM), keep the new run with its parent and edit, and show both side by side."""
        self._start(self._regenerate, background)

    def leave_one_out(self, background: bool = False) -> None:
        """Regenerate the ticked run once without each triple `what_if.left_out()` names,
        keeping each new run (parent and edit) and listing the triples that change the
        answer as they are found; Stop ends it (the probes done stay)."""
        self._start(self._leave_one_out, background)

    def _start(self, work: Callable[[], None], background: bool) -> None:
        """`work` with the what-if buttons disabled and its Stop enabled meanwhile."""
        buttons = [self.what_if.button, self.what_if.leave_out]
        self.controls.run(work, buttons, background, self.what_if.stop)

    def _ticked_run(self) -> tuple[str, Run]:
        if len(self.table.ticked) != 1:
            raise InputError("tick the one run to regenerate")
        run_id = self.table.ticked[0]
        return run_id, self.kept.run(run_id)

    def _regenerate(self) -> None:
        parent_id, parent = self._ticked_run()
        dropped, added = self.what_if.edit()
        session = self.controls.session(parent.trace.dataset)
        self.controls.status.value = message(f"regenerating {parent_id} with {session.llm} …")
        run = session.regenerate(parent, dropped, added)
        try:
            entry = self.kept.keep(run, parent_id)
        except KgvizError as error:
            self.show_pair([parent, run], [parent_id, "regenerated (not kept)"])
            raise RunStoreError(f"the regenerated run was not kept: {error}") from error
        self.table.select([parent_id, entry.id])
        before, after = (", ".join(r.trace.answers) or "(none)" for r in (parent, run))
        self.controls.status.value = message(f"regenerated: {before} → {after}", "ok")

    def _leave_one_out(self) -> None:
        parent_id, parent = self._ticked_run()
        triples = self.what_if.left_out()
        if not triples:
            raise InputError("the run has no evidence to leave out")
        session = self.controls.session(parent.trace.dataset)
        probes: list[Probe] = []
        started = time.monotonic()

        def heard(probe: Probe) -> None:
            probes.append(probe)
            self.kept.keep(probe.run, parent_id)
            self.what_if.probes.value = probes_html(probes, len(triples))
            spent = time.monotonic() - started
            self.controls.status.value = message(
                f"leave one out: {time_left(len(probes), len(triples), spent)} …"
            )

        self.what_if.probes.value = probes_html([], len(triples))
        try:
            leave_one_out(session, parent, triples, heard)
        finally:  # stopped or done: the graph shows what the probes found
            self.what_if.probes_graph.value = probes_graph(parent, probes)
        changed = sum(probe.changed for probe in probes)
        self.controls.status.value = message(
            f"leave one out: the answer changed without {changed} of {len(triples)} triples", "ok"
        )

    def _show_one(self, run_id: str) -> None:
        run = self.kept.run(run_id)
        entry = next(entry for entry in self.table.entries if entry.id == run_id)
        self.tags.value, self.note.value = ", ".join(entry.tags), entry.note
        self.what_if.show(run)
        self._show([self.notes, RunView.of(run), self.what_if])

    def _show(self, shown: list[widgets.Widget]) -> None:
        """Show `shown` in place of what was shown (its run views closed)."""
        keep = (self.notes, self.what_if)
        for widget in self.shown.children:
            if widget not in keep:
                close_tree(widget)
        self.shown.children = shown
