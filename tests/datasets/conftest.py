"""Shared set-up for the dataset tests: a private graph cache and broken copies of fixture files."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture
def fixtures_root() -> Path:
    """The data root holding the hand-written PathQuestion and WC2014 fixtures."""
    return FIXTURES


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep processed graphs out of the user's cache (the verified offline models stay)."""
    from kgviz.paths import models_root

    monkeypatch.setenv("KGVIZ_MODELS", str(models_root()))
    monkeypatch.setenv("KGVIZ_CACHE", str(tmp_path / "cache"))


@pytest.fixture
def broken_copy(tmp_path: Path) -> Callable[[str, int, str], Path]:
    """Copy the fixtures to a data root in tmp_path with line `number` of `file` replaced."""

    def make(file: str, number: int, text: str) -> Path:
        root = tmp_path / "data"
        shutil.copytree(FIXTURES, root)
        lines = (root / file).read_text(encoding="utf-8").splitlines()
        lines[number - 1] = text
        (root / file).write_text("\n".join(lines) + "\n", encoding="utf-8")
        return root

    return make
