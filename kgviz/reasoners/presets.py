"""Presets: named sets of a method's options. `tuned` is kgviz's defaults; `paper` follows the
method's paper where kgviz's parts allow, its description saying where they do not. A run's
options are its preset's values with the options set explicitly on top (explicit wins)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kgviz.errors import UnknownNameError

TUNED, PAPER = "tuned", "paper"
PRESET_NAMES = (TUNED, PAPER)
DEFAULT_PRESET = TUNED


@dataclass(frozen=True)
class Preset:
    """`values` are the options the preset sets (every other option keeps its default)."""

    name: str
    description: str
    values: Mapping[str, Any] = field(default_factory=dict)


def tuned(description: str = "kgviz's defaults: the best setting measured so far.") -> Preset:
    """The `tuned` preset: the config's defaults."""
    return Preset(TUNED, description)


def parts_note(paper_llm: str, paper_encoder: str = "") -> str:
    """What no preset can follow, said after a preset's own 'Not followed': the paper's reader
    and (when it names another) text encoder."""
    encoder = f"; text vectors come from all-MiniLM-L6-v2 instead of {paper_encoder}"
    return (
        "The reader is the session's LLM (by default the offline "
        f"Qwen2.5-Coder-1.5B, 4-bit) instead of {paper_llm}{encoder if paper_encoder else ''}."
    )


def preset_named(method: str, presets: tuple[Preset, ...], name: str) -> Preset:
    """The preset `name` among a method's, or a one-line error naming those it has."""
    for preset in presets:
        if preset.name == name:
            return preset
    known = ", ".join(preset.name for preset in presets)
    raise UnknownNameError(f"{method} has no preset {name!r}; its presets: {known}")


def with_preset(preset: Preset, options: Mapping[str, Any]) -> dict[str, Any]:
    """The options a run uses: the preset's values, then `options` over them (explicit wins).

    >>> paper = Preset(PAPER, "the paper's K", {"top_k": 100, "answer_reask": False})
    >>> with_preset(paper, {"top_k": 30})
    {'top_k': 30, 'answer_reask': False}
    """
    return {**preset.values, **options}
