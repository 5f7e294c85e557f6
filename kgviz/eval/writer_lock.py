"""One results file, one writer: an advisory lock held for a whole evaluation run."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kgviz.exclusive_lock import exclusive_lock


def lock_path(out: Path) -> Path:
    """The lock file beside a results file (`.r.jsonl.lock` for `r.jsonl`)."""
    return out.with_name(f".{out.name}.lock")


@contextmanager
def sole_writer(out: Path) -> Iterator[None]:
    """Hold the advisory lock of `out` for the block; a second writer is refused at once with a
    line naming the holder. The lock goes with the process, so a killed run leaves none behind."""
    with exclusive_lock(
        lock_path(out),
        "kgviz eval",
        refused=lambda holder: (
            f"{out} is being written by {holder}; wait for that run to end "
            "or write to another --out file"
        ),
        unwritable=lambda error: f"cannot write results to {out}: {error.strerror}",
    ):
        yield
