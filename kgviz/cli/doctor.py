"""`kgviz doctor`: which LLM backends, models, datasets and indexes are usable, and how to fix the
rest.
"""

from __future__ import annotations

import importlib.util
from typing import Any

from kgviz.errors import KgvizError

Row = dict[str, Any]


def _row(component: str, ok: bool, detail: str, fix: str = "") -> Row:
    return {
        "component": component,
        "status": "ok" if ok else "missing",
        "detail": detail,
        "fix": "" if ok else fix,
    }


def encoder_rows() -> list[Row]:
    from kgviz.embed.encoder import DEFAULT_MODEL, bundled_model_path

    try:
        path = bundled_model_path(DEFAULT_MODEL)
        return [_row(f"encoder {DEFAULT_MODEL}", path.is_dir(), str(path))]
    except KgvizError as error:
        return [_row(f"encoder {DEFAULT_MODEL}", False, str(error), "make setup")]


def dataset_rows() -> list[Row]:
    from kgviz.datasets import dataset_names, get_dataset
    from kgviz.paths import cache_name, cache_root

    rows = []
    for name in dataset_names():
        dataset = get_dataset(name)
        try:
            dataset.check_available()
        except KgvizError:
            rows.append(
                _row(f"dataset {name}", False, f"not under {dataset.root}", dataset.how_to_get())
            )
            continue
        rows.append(
            _row(
                f"dataset {name}",
                True,
                f"{dataset.root} (splits: {', '.join(dataset.available_splits()) or 'none'})",
            )
        )
        indexes = cache_root() / "indexes"
        stem = cache_name(dataset.kg_name or dataset.name)
        built = indexes.is_dir() and any(indexes.glob(f"{stem}-*"))
        rows.append(
            _row(
                f"index {dataset.kg_name or name}",
                built,
                "built" if built else "not built yet (builds on first use)",
                f"kgviz index build {name}",
            )
        )
    return rows


def llm_rows() -> list[Row]:
    if importlib.util.find_spec("kgviz.llm.select") is None:
        return [_row("llm", False, "LLM layer not installed", "make setup")]
    from kgviz.llm.select import doctor_report

    return doctor_report()


def doctor_rows() -> list[Row]:
    """All checks, LLM first; de-duplicated index rows for datasets that share one KB."""
    rows = llm_rows() + encoder_rows() + dataset_rows()
    seen: set[str] = set()
    unique = []
    for row in rows:
        if row["component"] not in seen:
            seen.add(row["component"])
            unique.append(row)
    return unique
