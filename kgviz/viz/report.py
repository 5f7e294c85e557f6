"""Evaluation reports: Markdown tables for a README or terminal, and a self-contained HTML page
with the same tables, the charts and the misses."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from kgviz.errors import MissingDataError
from kgviz.eval.mixing import check_one_setting
from kgviz.eval.results_file import read_results
from kgviz.eval.rows import ResultRow
from kgviz.eval.significance import paired_table
from kgviz.eval.tables import (
    attribution_table,
    hits_by_hop,
    label_variants,
    method_hop_table,
    misses_table,
    rows_frame,
)
from kgviz.storage.atomic import write_text_atomic
from kgviz.viz.escape import esc


def require_files(paths: Sequence[Path]) -> None:
    """A one-line error naming the results files that do not exist."""
    missing = [str(path) for path in paths if not Path(path).is_file()]
    if missing:
        raise MissingDataError(f"no results file {', '.join(missing)}")


def load_rows(paths: Sequence[Path], allow_mixed: bool = False) -> list[ResultRow]:
    """Rows of several results files, in order, each method labelled with its preset and
    options and, when the rows come from more than one LLM, its LLM (`label_variants`). A row
    with a field of the wrong type is a one-line error naming its file and line; rows of one
    label from different settings (code, options, model file, card) are one too, unless
    `allow_mixed`."""
    require_files(paths)
    rows = label_variants([row for path in map(Path, paths) for row in read_results(path)])
    check_one_setting(rows, allow_mixed)
    return rows


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.2f}" if abs(value) < 100 else f"{value:,.0f}"
    return str(value).replace("|", "\\|").replace("\n", " ")


def markdown_table(table: pd.DataFrame) -> str:
    """A pipe table with the index as leading column(s); floats to two decimals."""
    flat = table.reset_index()
    lines = [
        "| " + " | ".join(_cell(c) for c in flat.columns) + " |",
        "|" + "---|" * len(flat.columns),
    ]
    lines += [
        "| " + " | ".join(_cell(v) for v in row) + " |" for row in flat.itertuples(index=False)
    ]
    return "\n".join(lines)


def paired_differences(frame: pd.DataFrame) -> pd.DataFrame:
    """`paired_table` with its p-values as text to three significant digits (two decimals would
    round the decisive ones to 0.00)."""
    table = paired_table(frame)
    table["p (exact McNemar)"] = [f"{p:.3g}" for p in table["p (exact McNemar)"]]
    return table


PAIRED_NOTE = (
    "Each pair of methods on the questions both answered: a small p says the "
    "difference in Hits@1 is unlikely to be chance."
)


def answered_by(rows: Sequence[ResultRow]) -> str:
    """One line: how many answers, and which LLM(s) gave them."""
    llms = list(dict.fromkeys(row.get("llm") or "an unrecorded LLM" for row in rows))
    return f"{len(rows)} answers by {', '.join(llms)}."


HITS, PER_HOP, MISSES, PAIRED = (
    "Hits@1 per method and hop",
    "Per method and hop",
    "Where the misses failed",
    "Paired differences",
)
NOTES = {PAIRED: PAIRED_NOTE}


def report_tables(rows: Sequence[ResultRow]) -> dict[str, pd.DataFrame]:
    """The report's tables under their headings: Hits@1 per method and hop, the full
    per-(method, hop) table, the error attribution and, with two methods or more, the paired
    differences between them."""
    frame = rows_frame(rows)
    tables = {
        HITS: hits_by_hop(frame),
        PER_HOP: method_hop_table(frame),
        MISSES: attribution_table(frame),
    }
    paired = paired_differences(frame)
    if len(paired):
        tables[PAIRED] = paired
    return tables


def markdown_report(rows: Sequence[ResultRow]) -> str:
    """Which LLM answered, then `report_tables` in Markdown."""
    parts = [answered_by(rows)]
    for heading, table in report_tables(rows).items():
        parts += [f"### {heading}", *([NOTES[heading]] if heading in NOTES else [])]
        parts.append(markdown_table(table))
    return "\n\n".join(parts) + "\n"


def tables_html(tables: dict[str, pd.DataFrame], level: int = 2) -> list[str]:
    """`report_tables` as HTML: each table under its heading (and note); text escaped."""
    parts = []
    for heading, table in tables.items():
        parts.append(f"<h{level}>{esc(heading)}</h{level}>")
        if heading in NOTES:
            parts.append(f"<p>{esc(NOTES[heading])}</p>")
        parts.append(table.to_html(float_format="%.2f"))
    return parts


def html_report(rows: Sequence[ResultRow], title: str = "kgviz evaluation") -> str:
    """One HTML page (plotly.js inlined, so it opens offline) with tables, charts and misses."""
    from kgviz.viz.eval_charts import accuracy_chart, attribution_chart, cost_chart

    frame = rows_frame(rows)
    tables = report_tables(rows)
    charts = [accuracy_chart(frame), cost_chart(frame), attribution_chart(frame)]
    parts = [
        f"<h1>{esc(title)}</h1>",
        (
            f"<p>{esc(answered_by(rows))} Methods: "
            f"{esc(', '.join(frame['method'].cat.categories))}.</p>"
        ),
        *tables_html({h: tables[h] for h in (HITS, PER_HOP)}),
        *(c.to_html(full_html=False, include_plotlyjs=i == 0) for i, c in enumerate(charts)),
        *tables_html({h: t for h, t in tables.items() if h not in (HITS, PER_HOP)}),
        "<h2>Misses (the first 8 per method)</h2>",
        misses_table(rows).to_html(index=False, classes="text"),
    ]
    style = (
        "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}"
        "table.text td{text-align:left;vertical-align:top;max-width:28em}"
    )
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{esc(title)}</title>"
        f"<style>{style}</style></head><body>{''.join(parts)}</body></html>"
    )


def write_report(
    rows: Sequence[ResultRow], html_path: Path | None = None, markdown_path: Path | None = None
) -> str:
    """Write the requested files atomically; return the Markdown report."""
    markdown = markdown_report(rows)
    if markdown_path is not None:
        write_text_atomic(markdown_path, markdown)
    if html_path is not None:
        write_text_atomic(html_path, html_report(rows))
    return markdown
