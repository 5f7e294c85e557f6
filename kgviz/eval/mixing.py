"""Which rows one number may pool: rows a report labels alike (`tables.label_variants`) must
come from one setting, the same code, options, model file and checkpoint card."""

from __future__ import annotations

import json
from collections.abc import Sequence

from kgviz.errors import RunStoreError
from kgviz.eval.rows import ResultRow

# Row field -> how a refusal names it.
SETTING_PARTS = {
    "code": "code version",
    "llm_sha256": "LLM model file",
    "card_sha256": "checkpoint card",
    "options": "options",
}


def mixed_setting(rows: Sequence[ResultRow]) -> str | None:
    """What makes the first label whose rows come from more than one setting mixed, or None.
    A field a row lacks (rows of older versions) counts as 'unrecorded'."""
    seen: dict[tuple[str, str], set[str]] = {}
    for row in rows:
        for field in SETTING_PARTS:
            value = row.get(field)
            shown = "unrecorded" if value is None else json.dumps(value, sort_keys=True)
            seen.setdefault((row["method"], field), set()).add(shown)
    for (label, field), values in seen.items():
        if len(values) > 1:
            listed = ", ".join(sorted(values))[:160]
            return f"{label}: rows of {len(values)} {SETTING_PARTS[field]}s ({listed})"
    return None


def check_one_setting(rows: Sequence[ResultRow], allow_mixed: bool = False) -> None:
    """Refuse, in one line, to pool rows of one label that differ in setting, unless
    `allow_mixed`."""
    problem = None if allow_mixed else mixed_setting(rows)
    if problem:
        raise RunStoreError(
            f"{problem} would be pooled into one number; report them apart (one file each) "
            "or pass --allow-mixed"
        )
