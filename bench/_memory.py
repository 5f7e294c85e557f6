"""Resident memory of the running process (Linux), for the benchmarks that report it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager


class Rss:
    """Resident memory from /proc/self/status (Linux); the high-water mark is reset per block."""

    def __init__(self) -> None:
        self.process_peak_mb = 0.0

    @staticmethod
    def read(field: str) -> float:
        with open("/proc/self/status") as status:
            line = next(line for line in status if line.startswith(field + ":"))
        return int(line.split()[1]) / 1024

    @contextmanager
    def measure(self) -> Iterator[dict[str, float]]:
        """Yield a dict filled on exit: seconds, peak RSS rise and kept RSS rise (MB)."""
        self.process_peak_mb = max(self.process_peak_mb, self.read("VmHWM"))
        before = self.read("VmRSS")
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")  # reset VmHWM to the current RSS
        began = time.perf_counter()
        figures: dict[str, float] = {}
        yield figures
        figures["s"] = time.perf_counter() - began
        peak = self.read("VmHWM")
        self.process_peak_mb = max(self.process_peak_mb, peak)
        figures["peak_rise_mb"] = peak - before
        figures["kept_mb"] = self.read("VmRSS") - before


def available_mb() -> float:
    with open("/proc/meminfo") as meminfo:
        line = next(line for line in meminfo if line.startswith("MemAvailable:"))
    return int(line.split()[1]) / 1024
