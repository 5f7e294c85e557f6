"""Grounding: each mention of the question (or of SimGRAG's pattern), the KG entity it is, or
the nearest one, and whether that counts as the same thing."""

from __future__ import annotations

from kgviz.reasoners.grounding import Grounding
from kgviz.viz.escape import esc

CELL = "padding:2px 10px;border-bottom:1px solid #ddd;text-align:left"
SOURCES = {
    "given": "given or [marked]",
    "linker": "entity linker",
    "name": "name-like words",
    "pattern": "pattern node",
}


def grounding_table(grounding: Grounding) -> str:
    """HTML: the verdict, then one row per mention (mention, from, entity, how, distance, in
    the KG), ungrounded rows in red."""
    columns = ("mention", "from", "KG entity (or nearest)", "how", "distance", "in the KG")
    header = "".join(f'<th style="{CELL}">{esc(name)}</th>' for name in columns)
    rows = "".join(
        f'<tr style="color:{"inherit" if m.grounded else "#b00020"}">'
        + "".join(
            f'<td style="{CELL}">{esc(value)}</td>'
            for value in (
                m.mention,
                SOURCES.get(m.source, m.source),
                m.entity or "(none)",
                m.how,
                f"{m.distance:.2f}",
                "yes" if m.grounded else "no",
            )
        )
        + "</tr>"
        for m in grounding.mentions
    )
    verdict = (
        "<b style='color:#2a7a2a'>grounded</b>: what the question names is in this KG"
        if grounding.grounded
        else f"<b style='color:#b00020'>not grounded</b>: {esc(grounding.warning())}"
    )
    note = (
        f"A mention counts as in the KG when a KG name matches it (exactly, or normalised), or "
        f"its nearest entity is within L2 distance {grounding.threshold:.2f}."
    )
    return (
        f'<div style="font:13px sans-serif"><div>{verdict}</div>'
        f'<table style="border-collapse:collapse;margin:4px 0">'
        f"<tr>{header}</tr>{rows}</table><div style='color:#555'>{note}</div></div>"
    )
