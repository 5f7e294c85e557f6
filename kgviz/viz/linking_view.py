"""Topic-entity linking: which question span became which KG entity, and how."""

from __future__ import annotations

from kgviz.reasoners.linking import EntityLinking
from kgviz.viz.escape import esc

CELL = "padding:2px 10px;border-bottom:1px solid #ddd;text-align:left"


def linking_table(linking: EntityLinking) -> str:
    """HTML: the question, then one row per topic entity (entity, span, method, score)."""
    header = "".join(f'<th style="{CELL}">{h}</th>' for h in ("entity", "span", "method", "score"))
    rows = "".join(
        "<tr>"
        + "".join(
            f'<td style="{CELL}">{esc(v)}</td>'
            for v in (e.name, e.span, e.method, f"{e.score:.3f}")
        )
        + "</tr>"
        for e in linking.entities
    )
    empty = "" if linking.entities else "<p>No topic entity found.</p>"
    unresolved = (
        f"<p>Not in the KG: {esc(', '.join(linking.unresolved))}</p>" if linking.unresolved else ""
    )
    return (
        f'<div style="font:13px sans-serif"><div><b>Question:</b> {esc(linking.question)}</div>'
        f'<table style="border-collapse:collapse;margin-top:4px">'
        f"<tr>{header}</tr>{rows}</table>{empty}{unresolved}</div>"
    )
