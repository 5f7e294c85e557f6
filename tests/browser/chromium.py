"""The Chromium the browser tests drive: where it is, its flags, and a launch through Playwright.

`KGVIZ_CHROMIUM` names the executable; otherwise `chromium` (or `chromium-browser`) on the
PATH. Without one, `tests/tiers.py` skips the browser tier with the reason, except under CI
(`CI=true`), where the tier must run and its tests fail instead.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

# Headless on a machine with no network but loopback: no first-run, sync or background fetches.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> Path | None:
    """The Chromium executable, or None when there is none."""
    configured = os.environ.get("KGVIZ_CHROMIUM")
    if configured:
        return Path(configured) if Path(configured).is_file() else None
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    return Path(found) if found else None


def missing_reason() -> str:
    return (
        "no Chromium found (set KGVIZ_CHROMIUM, or run `make browser-deps` as root: "
        "apt-get install chromium chromium-driver)"
    )


@contextmanager
def launched() -> Iterator[Any]:
    """A headless Chromium driven by Playwright, closed on exit."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(chromium_path()), args=FLAGS)
        try:
            yield browser
        finally:
            browser.close()
