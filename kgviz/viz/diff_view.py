"""Differences drawn: two runs' verdicts side by side, the options that differ, and the answers
and evidence triples in both, only in A and only in B (`kgviz.run_diff`); and the evidence edit
a regenerated run records."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kgviz.leave_one_out import Probe
from kgviz.run import EvidenceEdit
from kgviz.run_diff import RunDiff, Split
from kgviz.viz.escape import esc

CELL = 'style="border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top"'
VERDICT_KEYS = ("method", "answers", "hits@1", "hit", "f1")


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
    lines = [f'<div style="color:#b00020">− {esc(_item(x))}</div>' for x in part.only_a]
    lines += [f'<div style="color:#2a7a2a">+ {esc(_item(x))}</div>' for x in part.only_b]
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


def edit_html(edit: EvidenceEdit) -> str:
    """A regenerated run's edit of its parent's evidence: triples removed (−) and added (+)."""
    lines = [f'<div style="color:#b00020">− {esc(_item(t))}</div>' for t in edit.dropped]
    lines += [f'<div style="color:#2a7a2a">+ {esc(_item(t))}</div>' for t in edit.added]
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
