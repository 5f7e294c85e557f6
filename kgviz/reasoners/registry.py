"""The registry of methods: each name (the CLI contract) maps to the spec in that method's folder,
imported only when asked for, the way PyG lists its datasets. Adding a method is one line here
(or one `register_method` call for a plugin)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kgviz.errors import UnknownNameError
from kgviz.reasoners.base import Reasoner, ReasonerContext
from kgviz.reasoners.spec import MethodSpec, load_attribute
from kgviz.trace import Trace
from kgviz.trace.io import trust_package

_SPECS: dict[str, str | MethodSpec] = {
    "simgrag": "kgviz.reasoners.simgrag.spec:SPEC",
    "llm-only": "kgviz.reasoners.llm_only.spec:SPEC",
    "kaping": "kgviz.reasoners.kaping.spec:SPEC",
    "subgraphrag": "kgviz.reasoners.subgraphrag.spec:SPEC",
    "grag": "kgviz.reasoners.grag.spec:SPEC",
    "gnnrag": "kgviz.reasoners.gnnrag.spec:SPEC",
    "tog": "kgviz.reasoners.tog.spec:SPEC",
}


def register_method(spec: MethodSpec | str, name: str | None = None) -> None:
    """Add a method: its `MethodSpec`, or the path `"package.module:SPEC"` of one (with `name`).
    The traces of its runs may then name its package's record types (`trace_io`)."""
    if isinstance(spec, MethodSpec):
        trust_package(spec.reasoner)
        _SPECS[spec.name] = spec
    elif name is None:
        raise UnknownNameError("register_method needs the method's name with a spec's path")
    else:
        trust_package(spec)
        _SPECS[name] = spec


def method_names() -> list[str]:
    return list(_SPECS)


def method_spec(name: str) -> MethodSpec:
    entry = _SPECS.get(name)
    if entry is None:
        raise UnknownNameError(f"unknown method {name!r}; available: {', '.join(_SPECS)}")
    if isinstance(entry, str):
        entry = _SPECS[name] = load_attribute(entry)
    if not isinstance(entry, MethodSpec):
        raise UnknownNameError(f"{name}: the registry names {entry!r}, which is no MethodSpec")
    return entry


def method_label(name: str, options: Mapping[str, Any] | None = None, llm: str = "") -> str:
    """The name tables and views show for method `name` (its own name if unknown); with a run's
    `options` and `llm`, the name of that run where they change it (GRAG with its soft prompt)."""
    if name not in _SPECS:
        return name
    spec = method_spec(name)
    if options is not None and spec.run_label is not None:
        return spec.run_label(options, llm)
    return spec.shown_as


def trace_label(trace: Trace) -> str:
    """`method_label` of a run from its recorded setting (the method's label for a trace that
    predates recording it)."""
    return method_label(trace.method, trace.setting.get("options"), trace.setting.get("llm", ""))


def trainable_methods() -> list[str]:
    return [name for name in _SPECS if method_spec(name).trainer]


def reasoner_class(name: str) -> type[Reasoner[Any]]:
    return method_spec(name).reasoner_class()


def make_reasoner(name: str, context: ReasonerContext, **config: Any) -> Reasoner[Any]:
    """Build the reasoner `name`; `config` overrides fields of its config dataclass."""
    return reasoner_class(name).from_config(context, **config)
