"""A method's spec: everything kgviz needs to know about a method, declared in the method's folder.

A spec names its parts by import path (`"package.module:attribute"`), so reading the registry
imports no reasoner, view or trainer until one is used. The CLI, the lab, the evaluation runner
and the views all go through the spec: adding a method touches its folder and one registry line.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kgviz.datasets.base import QARecord
from kgviz.errors import InputError
from kgviz.reasoners.presets import Preset, preset_named, tuned
from kgviz.trace import Trace

if TYPE_CHECKING:
    from kgviz.reasoners.base import Reasoner, ReasonerConfig

# A method's own reason for a miss before retrieval (e.g. SimGRAG's unusable pattern):
# `(stage, reason)`, or None when the method sees nothing wrong at its own stages.
Diagnosis = Callable[[Trace, QARecord], "tuple[str, str] | None"]


def load_attribute(target: str) -> Any:
    """The object `"package.module:attribute"` names (imported now)."""
    module_name, _, attribute = target.partition(":")
    if not module_name or not attribute:
        raise InputError(f"{target!r} is not of the form 'package.module:attribute'")
    try:
        return getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as error:
        raise InputError(f"cannot load {target!r}: {error}") from error


@dataclass(frozen=True)
class MethodSpec:
    """One method. `reasoner` is its `Reasoner` class; `views` its view table (a
    `ViewTable` of `kgviz.viz`), `trainer` the `main(argv)` of its `kgviz train` command,
    `diagnosis` its own failure check for error attribution (returning one of `stages`, the
    names of its own stages a miss can be blamed on); empty where it has none.
    `recording_options` are the options that make a run record what its views draw (set by
    the lab, pages and the demo, not by evaluations). `presets` are its named settings
    (`tuned`, its defaults, first; `paper` where it has one)."""

    name: str
    reasoner: str
    summary: str
    config: str = ""  # its options' dataclass, when it lives apart from the reasoner (light)
    label: str = ""  # how tables and views name it, where the name alone would overstate it
    # the label of a run with these options and this LLM (`backend:model`), where they change it
    run_label: Callable[[Mapping[str, Any], str], str] | None = None
    views: str = ""
    # `prompts(domain) -> {label: messages}`: its prompts for a placeholder question, whose fixed
    # prefixes `kgviz model prepare --prefixes` keeps (`prompt_prefixes`)
    prompts: str = ""
    trainer: str = ""
    diagnosis: str = ""
    stages: tuple[str, ...] = ()
    recording_options: Mapping[str, Any] = field(default_factory=dict)
    presets: tuple[Preset, ...] = (tuned(),)

    def preset(self, name: str) -> Preset:
        """The preset `name`, or a one-line error naming this method's presets."""
        return preset_named(self.name, self.presets, name)

    @property
    def shown_as(self) -> str:
        return self.label or self.name

    def reasoner_class(self) -> type[Reasoner[Any]]:
        return load_attribute(self.reasoner)

    def config_class(self) -> type[ReasonerConfig]:
        """Its options' dataclass: from `config` without importing the reasoner (listing the
        methods then loads no model code), else the reasoner's."""
        return load_attribute(self.config) if self.config else self.reasoner_class().config_class

    def view_table(self) -> Any:
        """Its view table, or None for a method that draws only the common stages."""
        return load_attribute(self.views) if self.views else None

    def trainer_main(self) -> Callable[[list[str]], int | None]:
        if not self.trainer:
            raise InputError(f"{self.name} learns nothing, so it has no trainer")
        return load_attribute(self.trainer)

    def diagnose(self, trace: Trace, record: QARecord) -> tuple[str, str] | None:
        if not self.diagnosis:
            return None
        check: Diagnosis = load_attribute(self.diagnosis)
        return check(trace, record)
