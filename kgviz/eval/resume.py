"""What a results file may be resumed with: one LLM's answers, one setting per method."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from kgviz.errors import RunStoreError
from kgviz.eval.rows import ResultRow
from kgviz.reasoners.presets import DEFAULT_PRESET


def record_key(method: str, qid: str) -> str:
    return f"{method}\t{qid}"


def check_one_llm(rows: Iterable[ResultRow], llm: str, out: Path) -> None:
    """A results file holds one LLM's answers: refuse to resume it with another (rows from
    different models would be pooled in every table)."""
    others = sorted({row.get("llm") or "an unrecorded LLM" for row in rows} - {llm})
    if others:
        raise RunStoreError(
            f"{out} holds answers from {', '.join(others)}, but this run uses {llm}; "
            "write to another --out file so the results of different LLMs stay apart"
        )


def check_same_settings(
    rows: Iterable[ResultRow],
    methods: Sequence[str],
    preset: str,
    settings: dict[str, Any],
    out: Path,
) -> None:
    """A results file holds one setting of each method: refuse to resume a method's answers with
    another preset or other options (a variant goes to a file of its own, and reports label
    it). Rows from before presets ran the default one."""
    clashing = sorted(
        {
            row["method"]
            for row in rows
            if row["method"] in methods
            and (row.get("preset", DEFAULT_PRESET), row.get("settings", {})) != (preset, settings)
        }
    )
    if clashing:
        raise RunStoreError(
            f"{out} holds {', '.join(clashing)} answers with another preset or other options "
            f"than {variant_label(preset, settings) or 'the defaults'}; write to another "
            "--out file so each setting's results stay apart"
        )


def settings_label(settings: dict[str, Any]) -> str:
    """`top_k=30 hops=2`: the options a run set, as a label ('' for the defaults)."""
    return " ".join(f"{key}={json.dumps(value)}" for key, value in sorted(settings.items()))


def variant_label(preset: str, settings: dict[str, Any]) -> str:
    """`paper top_k=30`: a preset and the options set over it, as a label (the default preset
    unnamed: '' for the defaults)."""
    shown = "" if preset == DEFAULT_PRESET else preset
    return " ".join(part for part in (shown, settings_label(settings)) if part)
