"""Differences drawn: two runs' verdicts side by side, the options that differ, and the answers
and evidence triples in both, only in A and only in B (`kgviz.runs.diff`); and the evidence edit
a regenerated run records."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kgviz.runs.diff import RunDiff, Split
from kgviz.runs.leave_one_out import Probe
from kgviz.runs.run import EvidenceEdit, Run
from kgviz.viz.escape import esc
from kgviz.viz.evidence_view import EdgeMark, evidence_graph
from kgviz.viz.marks import Marks

CELL = 'style="border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top"'
VERDICT_KEYS = ("method", "answers", "hits@1", "hit", "f1")
ONLY_A, ONLY_B = "#b00020", "#2a7a2a"  # the colours of − and + in every diff
CHANGES = EdgeMark("the answer changes without it", "#d9480f")
SAME = EdgeMark("the answer stays without it", "#9bb7d4")


def _value(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(map(str, value)) or "(none)"
    return str(value)


def _item(item: Any) -> str:
    return " | ".join(item) if isinstance(item, tuple) else str(item)


def _table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    cells = "".join(f"<th {CELL}>{esc(name)}</th>" for name in head)
    body = "".join(
        "<tr>" + "".join(f"<td {CELL}>{esc(value)}</td>" for value in row) + "</tr>" for row in rows
    )
    return f'<table style="border-collapse:collapse">{f"<tr>{cells}</tr>"}{body}</table>'


def _split(title: str, part: Split, names: tuple[str, str]) -> str:
    """A part's items only in A (−), only in B (+), and how many are in both (listed, folded)."""
    lines = [f'<div style="color:{ONLY_A}">− {esc(_item(x))}</div>' for x in part.only_a]
    lines += [f'<div style="color:{ONLY_B}">+ {esc(_item(x))}</div>' for x in part.only_b]
    both = "".join(f"<div>{esc(_item(x))}</div>" for x in part.both)
    summary = (
        f"<b>{esc(title)}</b>: {len(part.both)} in both · {len(part.only_a)} only in "
        f"{esc(names[0])} (−) · {len(part.only_b)} only in {esc(names[1])} (+)"
    )
    folded = f"<details><summary>in both</summary>{both}</details>" if part.both else ""
    return f'<div style="margin:6px 0">{summary}{"".join(lines)}{folded}</div>'


def run_diff_html(diff: RunDiff, names: tuple[str, str] = ("A", "B")) -> str:
    """The difference of runs A and B (called `names`): verdicts, differing options, answers and
    evidence; every label is escaped."""
    verdicts = _table(
        ("run", *VERDICT_KEYS),
        [
            (name, *(_value(verdict.get(key)) for key in VERDICT_KEYS))
            for name, verdict in zip(names, diff.verdicts, strict=True)
        ],
    )
    changed = [(key, _value(a), _value(b)) for key, (a, b) in diff.options.items()]
    options = _table(("option", *names), changed) if changed else ""
    return (
        '<div class="kgviz-diff" style="font:13px sans-serif">'
        f"{verdicts}{options}{_split('answers', diff.answers, names)}"
        f"{_split('evidence', diff.evidence, names)}</div>"
    )


def diff_graph(diff: RunDiff, runs: tuple[Run, Run], names: tuple[str, str] = ("A", "B")) -> str:
    """One graph of both runs' evidence: triples only in A (−) and only in B (+) in the diff's
    colours, those in both as usual; gold answers and topic entities marked as in run A."""
    part = diff.evidence
    marks = {
        **{triple: EdgeMark(f"only in {names[0]} (−)", ONLY_A) for triple in part.only_a},
        **{triple: EdgeMark(f"only in {names[1]} (+)", ONLY_B) for triple in part.only_b},
    }
    answers = [answer for run in runs for answer in run.trace.answers]
    first = runs[0]
    return evidence_graph(
        [*part.both, *part.only_a, *part.only_b],
        answers,
        marks=Marks.of(first.trace),
        kg=first.kg,
        edge_marks=marks,
    )


def probes_graph(run: Run, probes: Sequence[Probe]) -> str:
    """`run`'s evidence graph with each triple left out so far marked by what its absence did
    to the answer (changed it, or not); triples not yet left out are drawn as usual."""
    marks = {probe.triple: CHANGES if probe.changed else SAME for probe in probes}
    return evidence_graph(
        run.trace.evidence,
        run.trace.answers,
        marks=Marks.of(run.trace),
        kg=run.kg,
        edge_marks=marks,
    )


def edit_html(edit: EvidenceEdit) -> str:
    """A regenerated run's edit of its parent's evidence: triples removed (−) and added (+)."""
    lines = [f'<div style="color:{ONLY_A}">− {esc(_item(t))}</div>' for t in edit.dropped]
    lines += [f'<div style="color:{ONLY_B}">+ {esc(_item(t))}</div>' for t in edit.added]
    return (
        '<div class="kgviz-edit" style="font:13px sans-serif"><b>evidence edited</b> '
        f"(the answer was generated again from it): {''.join(lines)}</div>"
    )


def probes_html(probes: Sequence[Probe], planned: int) -> str:
    """Leave one out so far (`planned` probes in all): a summary naming the triples without
    which the answer changes, then a row per probe (the changed ones marked)."""
    changed = [probe for probe in probes if probe.changed]
    summary = (
        f"<b>leave one out</b>: {len(probes)} of {planned} triples left out; the answer changed "
        f"without {len(changed)}"
        + ("".join(f"<div><b>{esc(_item(p.triple))}</b></div>" for p in changed) or ".")
    )
    rows = [
        (
            _item(probe.triple),
            _value(list(probe.run.trace.answers)),
            "changed" if probe.changed else "same",
            _value(None if probe.run.outcome.score is None else probe.run.outcome.score.hit1),
        )
        for probe in probes
    ]
    table = _table(("left out", "answers without it", "answer", "hits@1"), rows) if rows else ""
    return f'<div class="kgviz-leave-one-out" style="font:13px sans-serif">{summary}{table}</div>'
