"""Which code made a run: kgviz's version and, in a git checkout, its commit and whether the
working tree had changes (`0.1.0+g1a2b3c4d5e6f.dirty`)."""

from __future__ import annotations

import subprocess
from functools import cache
from pathlib import Path

__version__ = "0.1.0"  # as pyproject.toml says


@cache
def code_version() -> str:
    """`__version__`, plus `+g<commit>` (and `.dirty`) when kgviz runs from a git checkout."""
    checkout = Path(__file__).resolve().parent.parent
    try:
        commit = _git(checkout, "rev-parse", "--short=12", "HEAD")
        dirty = bool(_git(checkout, "status", "--porcelain", "--untracked-files=no", "kgviz"))
    except (OSError, subprocess.SubprocessError):
        return __version__
    return f"{__version__}+g{commit}" + (".dirty" if dirty else "")


def _git(folder: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=5, check=True
    )
    return done.stdout.strip()
