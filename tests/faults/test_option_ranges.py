"""Method options are bounded: every numeric option of every method declares a sane range, its
default lies in it, `kgviz methods` shows it, and a value outside it is one line naming the
option, the value and the range when the reasoner is built."""

from __future__ import annotations

from dataclasses import fields
from typing import get_type_hints

import pytest

from kgviz.datasets import get_dataset
from kgviz.errors import KgvizError
from kgviz.reasoners.base import ReasonerContext, accepts, option_range
from kgviz.reasoners.registry import make_reasoner, method_names, reasoner_class


def numeric_fields(method: str):
    config = reasoner_class(method).config_class
    hints = get_type_hints(config)
    for item in fields(config):
        if accepts(hints[item.name], 1) or accepts(hints[item.name], 1.5):
            yield item


@pytest.mark.parametrize("method", method_names())
def test_every_numeric_option_has_a_range_holding_its_default(method):
    for item in numeric_fields(method):
        bounds = option_range(item)
        assert bounds is not None, f"{method}: {item.name} has no range"
        low, high = bounds
        assert low <= high and (item.default == "auto" or low <= item.default <= high)


@pytest.mark.parametrize(
    "method, option, value, message",
    [
        ("kaping", "hops", 1_000_000, "kaping: hops must be at least 1 and at most 4, not 1000000"),
        (
            "llm-only",
            "max_tokens",
            100_000_000,
            "llm-only: max_tokens must be at least 1 and at most 8,192, not 100000000",
        ),
        ("simgrag", "time_limit_s", 0.0, "simgrag: time_limit_s must be at least 0.01 and"),
        ("gnnrag", "mass", 1.5, "gnnrag: mass must be at least 0.01 and at most 1, not 1.5"),
        ("subgraphrag", "top_k", 0, "subgraphrag: top_k must be at least 1 and at most 1,000"),
    ],
)
def test_a_value_out_of_range_is_refused(method, option, value, message):
    context = ReasonerContext(get_dataset("demo"), llm=None)
    with pytest.raises(KgvizError, match=message.replace("(", r"\(")):
        make_reasoner(method, context, **{option: value})


def test_out_of_range_on_the_command_line_is_one_line(kgviz_cli, ask_llm_only):
    run = kgviz_cli(*ask_llm_only, "--set", "max_tokens=100000000")
    assert run.returncode == 2
    assert run.error.endswith("max_tokens must be at least 1 and at most 8,192, not 100000000")


def test_kgviz_methods_shows_the_ranges():
    import subprocess
    import sys

    shown = subprocess.run(
        [sys.executable, "-m", "kgviz", "methods", "kaping"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    assert "--set hops=  hops around the topic entities" in shown
    assert "; at least 1 and at most 4 (int, default 1)" in shown
