"""Where a benchmark builds what it measures: a folder it keeps, or a temporary one."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def kept_or_temporary(keep: Path | None, prefix: str) -> Iterator[Path]:
    """`keep` (made if missing, left in place after), else a temporary folder removed after."""
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        yield keep
        return
    with tempfile.TemporaryDirectory(prefix=prefix) as temporary:
        yield Path(temporary)
