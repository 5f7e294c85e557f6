"""Text safety: data text escaped for where it goes, so it always shows as text.

Where data text goes, and how it stays text:
- HTML (tables, the prompt view, legends, the srcdoc attribute): `esc`, `html.escape` with quotes.
- plotly labels, titles and hovers: `plotly_text`. plotly reads tags (`<b>`, `<a>`, ...) in text
  and decodes only a few entities (`&amp;`, `&lt;`, `&gt;`, numeric, not `&quot;`), so `&<>` only.
- pyvis (vis-network 9.1.2) labels are drawn on a canvas and string titles are set with
  `innerText`, so both stay text as they are; pyvis serialises them with jinja's `tojson`, which
  writes `<`, `>`, `&` and `'` as `\\u` escapes. `vis_text` only defuses pyvis's one HTML path: a
  node title containing "href" switches pyvis to a popup filled with `innerHTML`.
- data a graph's own scripts read (KG neighbourhoods): `script_json`, JSON with `<`, `>`, `&` as
  `\\u` escapes, so no `</script>` or entity in the data can end or change the script.
Graph iframes (`network.py`) are sandboxed (scripts, no same origin), so even a missed case cannot
reach the notebook.
"""

from __future__ import annotations

import html
import json


def esc(value: object) -> str:
    """Data as HTML text or attribute value."""
    return html.escape(str(value), quote=True)


def plotly_text(value: object, limit: int | None = None) -> str:
    """Data as plotly text (labels, titles, hover), cut to `limit` characters with an ellipsis."""
    text = str(value)
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    return html.escape(text, quote=False)


def vis_text(value: object) -> str:
    """Data as a pyvis label or title (plain text; see the module docstring)."""
    return str(value).replace("href", "hre\u200df")


def script_json(value: object) -> str:
    """`value` as JSON that stays data inside a `<script>` (see the module docstring)."""
    text = json.dumps(value, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
