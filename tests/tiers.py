"""Test tiers, applied at collection so that none can be forgotten.

- `notebook`: a cell of a notebook under `notebooks/` (nbval).
- `browser`: drives JupyterLab or a page in headless Chromium (marked by its module).
- `llm`: loads a real model (llama.cpp or transformers). Tests taking a real-model fixture are
  marked here; a test that builds one in its body, or runs a command that does, is marked by
  hand, and `ModelGuard` fails any unmarked test that loads a model, in this process or in a
  process it starts.
- `slow`: loads the full MetaQA graph, trains, or otherwise takes long without a model.

A test in none of these is `fast`: `make test-fast` runs those alone. Under pytest-xdist every
file runs on one worker (`--dist loadfile`, so a module's fixtures are built once), notebooks and
browser tests first so the longest files do not start last; each worker gets an even share of
the cores for llama.cpp and torch. The run ends with each tier's count and seconds.
"""

from __future__ import annotations

import os
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

TIERS = ("notebook", "browser", "llm", "slow")  # the first a test carries is its tier
FAST = "fast"
# Fixtures that load a real model or start a server around one (tests/conftest.py and the
# folders' conftests define them).
REAL_MODEL_FIXTURES = frozenset(
    {
        "local_llm",
        "local_llm_cold",
        "model_1_5b",
        "model_0_5b",
        "counting",
        "llamacpp_http",
        "ollama_proxy",
        "demo_sessions",
    }
)
# Files whose tests run first under xdist, heaviest first, so no long file starts last.
FIRST = ("notebook", "browser", "llm", "slow")
NO_MODELS_FOLDER = "no-models-here--mark-the-test-llm-to-load-one"


def tier_of(item: pytest.Item) -> str:
    """The tier of a test, from its markers."""
    return next((tier for tier in TIERS if item.get_closest_marker(tier)), FAST)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "llm: loads a real model (llama.cpp or transformers)")
    config.addinivalue_line("markers", "notebook: a notebook cell run by nbval")
    config.addinivalue_line("markers", "browser: drives a page in headless Chromium")
    config.addinivalue_line(
        "markers", "slow: loads the full MetaQA graph, trains, or takes long without a model"
    )
    config.pluginmanager.register(TierTotals(), "kgviz-tier-totals")
    share_cores_between_workers()


def share_cores_between_workers() -> None:
    """Under xdist, each worker's llama.cpp and torch use its share of the cores (never fewer
    than one), so two workers on two cores do not fight over them. Set before a notebook
    kernel starts, which inherits it."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers < 2:
        return
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    share = str(max(1, (cores or 1) // workers))
    for name in ("KGVIZ_LLM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, share)
    import torch

    torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test's tier, then order the files: heavy tiers first, stable within."""
    for item in items:
        if item.path.suffix == ".ipynb":
            item.add_marker(pytest.mark.notebook)
        elif REAL_MODEL_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.llm)
    rank: dict[Path, int] = {}
    for item in items:
        tier = tier_of(item)
        item.user_properties.append(("tier", tier))  # reports carry it, across xdist too
        order = FIRST.index(tier) if tier in FIRST else len(FIRST)
        rank[item.path] = min(rank.get(item.path, order), order)
    items.sort(key=lambda item: rank[item.path])  # stable: a file keeps its own order


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A browser test without Chromium: skipped with the reason, or failed under CI, which must
    run the browser tier."""
    if item.get_closest_marker("browser") is None:
        return
    from tests.browser.chromium import chromium_path, missing_reason

    if chromium_path() is None:
        if os.environ.get("CI", "").lower() in ("true", "1"):
            pytest.fail(f"CI runs the browser tier, but {missing_reason()}", pytrace=False)
        pytest.skip(missing_reason())


class ModelGuard:
    """Fails a test not marked `llm` (a notebook may: they all run the offline model) that
    loads a real model: in this process through the
    backends' `verify_model`, in a process it starts through `KGVIZ_MODELS` pointing to an
    empty folder whose name says what to do."""

    def __init__(self, item: pytest.Item, empty_models: Path) -> None:
        self.allowed = any(item.get_closest_marker(mark) for mark in ("llm", "notebook"))
        self.nodeid, self.empty_models = item.nodeid, empty_models

    @staticmethod
    def patch_targets() -> list[tuple[object, str]]:
        from kgviz.llm import hf_backend, llamacpp_backend

        return [(llamacpp_backend, "verify_model"), (hf_backend, "verify_model")]

    def guarded(self, verify: Callable[..., Path]) -> Callable[..., Path]:
        """`verify` (a backend's `verify_model`), failing the test unless it is marked llm once
        one of the shipped models passes it (a test's own small fake model may load)."""
        from kgviz.llm.model_files import MODELS

        shipped = {spec.sha256 for spec in MODELS.values()}

        def check(spec: Any, *args: Any, **kwargs: Any) -> Path:
            path = verify(spec, *args, **kwargs)
            if not self.allowed and spec.sha256 in shipped:
                pytest.fail(
                    f"{self.nodeid} loads the real model {spec.name} but is not marked llm: "
                    "take a real-model fixture or add @pytest.mark.llm (tests/tiers.py)",
                    pytrace=False,
                )
            return path

        return check


@pytest.fixture(autouse=True)
def model_guard(
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[None]:
    """`ModelGuard` for every test (see there)."""
    guard = ModelGuard(request.node, tmp_path_factory.getbasetemp() / NO_MODELS_FOLDER)
    for module, name in guard.patch_targets():
        monkeypatch.setattr(module, name, guard.guarded(getattr(module, name)))
    if not guard.allowed:
        monkeypatch.setenv("KGVIZ_MODELS", str(guard.empty_models))
    yield


class TierTotals:
    """Counts and seconds per tier, printed at the end of the run with the wall time."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.seconds: dict[str, float] = defaultdict(float)
        self.tests: dict[str, set[str]] = defaultdict(set)
        self.outcomes: Counter[tuple[str, str]] = Counter()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        tier = dict(report.user_properties).get("tier", FAST)
        self.seconds[tier] += report.duration
        self.tests[tier].add(report.nodeid)
        if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
            self.outcomes[(tier, report.outcome)] += 1

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.tests:
            return
        write = terminalreporter.write_line
        terminalreporter.section("tiers")
        write(f"{'tier':<10}{'tests':>7}{'passed':>8}{'skipped':>9}{'failed':>8}{'seconds':>10}")
        for tier in (*TIERS, FAST):
            if tier not in self.tests:
                continue
            passed, skipped, failed = (
                self.outcomes[(tier, outcome)] for outcome in ("passed", "skipped", "failed")
            )
            write(
                f"{tier:<10}{len(self.tests[tier]):>7}{passed:>8}{skipped:>9}{failed:>8}"
                f"{self.seconds[tier]:>10.0f}"
            )
        total = sum(len(names) for names in self.tests.values())
        wall = time.monotonic() - self.started
        write(f"{'all':<10}{total:>7}{'':>25}{sum(self.seconds.values()):>10.0f}")
        write(f"wall time {wall:.0f} s (test seconds summed over workers above)")
