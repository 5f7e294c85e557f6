"""Argument types and shared options of the commands, and their JSON output."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

from kgviz.cli.terminal import json_visible
from kgviz.errors import InputError
from kgviz.reasoners.presets import DEFAULT_PRESET, PRESET_NAMES


def print_json(value: object) -> None:
    """`value` as one line of JSON on stdout (control characters escaped as JSON)."""
    print(json_visible(json.dumps(value, ensure_ascii=False)))


def parse_settings(pairs: Sequence[str]) -> dict[str, object]:
    """`--set` values as options: JSON values where they parse, text otherwise.

    >>> parse_settings(["k=3", "algorithm=optimized", "answer_list=false", "top_k=auto"])
    {'k': 3, 'algorithm': 'optimized', 'answer_list': False, 'top_k': 'auto'}
    """
    settings: dict[str, object] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise InputError(f"bad --set {pair!r}: expected KEY=VALUE")
        try:
            settings[key] = json.loads(raw)
        except json.JSONDecodeError:
            settings[key] = raw
    return settings


def hop_counts(text: str) -> tuple[int, ...]:
    """An argparse type: hop counts separated by commas, e.g. `1,3`."""
    return tuple(positive_int(part.strip()) for part in text.split(",") if part.strip())


def names_list(text: str) -> tuple[str, ...]:
    """An argparse type: names separated by commas."""
    return tuple(part.strip() for part in text.split(",") if part.strip())


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not at least 1")
    return value


def add_llm_argument(parser: argparse.ArgumentParser) -> None:
    """`--llm`, with the backend table's grammar and summaries as its help."""
    from kgviz.llm.select import BACKENDS

    kinds = "; ".join(f"{kind.grammar}: {kind.summary}" for kind in BACKENDS)
    parser.add_argument("--llm", default="auto", metavar="SPEC", help=f"the LLM: {kinds}")


def add_option_arguments(parser: argparse.ArgumentParser, whose: str, example: str) -> None:
    """`--set KEY=VALUE` (repeatable) and `--preset`: `whose` options, e.g. `--set {example}`."""
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=f"an option of {whose}, e.g. --set {example} (repeatable; `kgviz methods` lists "
        "them); it wins over the preset's",
    )
    parser.add_argument(
        "--preset",
        choices=PRESET_NAMES,
        default=DEFAULT_PRESET,
        help="the preset: tuned (kgviz's defaults) or paper (the method's paper where kgviz's "
        "parts allow; `kgviz methods NAME` says what each sets and what it cannot follow)",
    )
