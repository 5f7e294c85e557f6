"""Test set-up shared by all folders: where the real data is, and a private cache when wanted."""

from __future__ import annotations

import base64
import json
import os
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
# Tests (and the notebooks nbval runs, whose kernels inherit this environment) read the real data
# beside the checkout through KGVIZ_DATA; product code only ever looks at KGVIZ_DATA.
if not os.environ.get("KGVIZ_DATA") and (SHARED_DATA / "MetaQA" / "kb.txt").is_file():
    os.environ["KGVIZ_DATA"] = str(SHARED_DATA)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real datasets beside the checkout (`../shared/data`), or `KGVIZ_DATA` when set."""
    configured = os.environ.get("KGVIZ_DATA")
    root = Path(configured) if configured else SHARED_DATA
    if not (root / "MetaQA" / "kb.txt").is_file():
        pytest.skip(
            f"real data not found at {root} (set KGVIZ_DATA or place shared/ beside the repo)"
        )
    return root


@pytest.fixture
def tmp_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private KGVIZ_CACHE for tests that must not read or write the user's cache.

    The offline models stay where they are: they are verified files, not per-test state.
    """
    from kgviz.paths import models_root

    monkeypatch.setenv("KGVIZ_MODELS", str(models_root()))
    cache = tmp_path / "cache"
    monkeypatch.setenv("KGVIZ_CACHE", str(cache))
    return cache


@pytest.fixture
def delivered():
    """`delivered(downloads, label) -> (file name, text)`: click the lab's download button
    `label` and read back the file its script hands the browser."""

    def click(downloads, label: str) -> tuple[str, str]:
        downloads.buttons[label].click()
        (output,) = downloads.delivery.outputs
        script = output["data"]["application/javascript"]
        file = json.loads(re.match(r"const file = (.*);\n", script).group(1))
        return file["name"], base64.b64decode(file["data"]).decode("utf-8")

    return click
