"""Traces as versioned JSON: save a run, load it back later or elsewhere, and draw it again.

`Trace.save` and `Trace.load` use this module. Stage records are dataclasses of kgviz's own
modules. Each is written with its type (`{"__record__": "kgviz.reasoners....:Class",
...fields}`), numpy arrays with their dtype, and tuples as tagged lists, so that `Trace.load`
rebuilds the same records for `stage_views`. Only types of trusted packages are rebuilt:
`kgviz` and the packages of registered methods (`register_method` trusts a plugin's package), so
a trace file cannot make kgviz import anything else.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from kgviz.errors import KgvizError, RunStoreError
from kgviz.storage.atomic import write_text_atomic

FORMAT = "kgviz-trace"
VERSION = 1
_TRUSTED = {"kgviz"}  # top-level packages whose record types a trace may name


def trust_package(module: str) -> None:
    """Let traces name record types of `module`'s top-level package (a registered plugin's)."""
    _TRUSTED.add(module.partition(".")[0])


def _encode(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        kind = type(value)
        fields = {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"__record__": f"{kind.__module__}:{kind.__qualname__}", **fields}
    if isinstance(value, np.ndarray):
        return {"__ndarray__": value.tolist(), "dtype": str(value.dtype)}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple):
        return {"__tuple__": [_encode(item) for item in value]}
    if isinstance(value, list):
        return [_encode(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _encode(item) for key, item in value.items()}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise RunStoreError(f"cannot save a {type(value).__name__} in a trace")


def _record_type(name: str) -> type:
    module_name, _, qualname = name.partition(":")
    if module_name.partition(".")[0] not in _TRUSTED:
        raise RunStoreError(
            f"trace names a record type outside kgviz and its registered methods: {name!r} "
            "(register the method that made it first)"
        )
    try:
        target: Any = importlib.import_module(module_name)
        for part in qualname.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError) as error:
        raise RunStoreError(
            f"trace names an unknown record type {name!r} (saved by another kgviz version?)"
        ) from error
    if not (isinstance(target, type) and dataclasses.is_dataclass(target)):
        raise RunStoreError(f"trace names {name!r}, which is not a record type")
    return target


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(item) for item in value]
    if not isinstance(value, dict):
        return value
    if "__ndarray__" in value:
        return np.asarray(value["__ndarray__"], dtype=value["dtype"])
    if "__tuple__" in value:
        return tuple(_decode(item) for item in value["__tuple__"])
    if "__record__" in value:
        kind = _record_type(value["__record__"])
        known = {f.name: f for f in dataclasses.fields(kind)}
        given = {name: _decode(item) for name, item in value.items() if name in known}
        made = {name: item for name, item in given.items() if known[name].init}
        record = kind(**made)
        for name, item in given.items():
            if not known[name].init:
                object.__setattr__(record, name, item)
        return record
    return {key: _decode(item) for key, item in value.items()}


def saved_trace(
    fields: dict[str, Any], stages: dict[str, Any], llm_calls: list[Any]
) -> dict[str, Any]:
    """A trace's plain `fields` with its stage records and LLM calls encoded, format and version
    added: JSON-able data for `write_trace`."""
    return {
        "format": FORMAT,
        "version": VERSION,
        **fields,
        "stages": {name: _encode(record) for name, record in stages.items()},
        "llm_calls": [_encode(call) for call in llm_calls],
    }


def read_saved(data: Any, where: str = "trace") -> tuple[dict[str, Any], dict[str, Any], list[Any]]:
    """`saved_trace`'s data checked and decoded: (plain fields, stage records, LLM calls)."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise RunStoreError(f"{where} is not a kgviz trace")
    if data.get("version") != VERSION:
        raise RunStoreError(
            f"{where} is a version {data.get('version')} trace; this kgviz reads version {VERSION}"
        )
    try:
        stages = {str(name): _decode(record) for name, record in data["stages"].items()}
        calls = [_decode(call) for call in data["llm_calls"]]
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise unreadable(where, error) from error
    fields = {
        key: value
        for key, value in data.items()
        if key not in ("format", "version", "stages", "llm_calls")
    }
    return fields, stages, calls


def unreadable(where: str, error: Exception) -> KgvizError:
    return RunStoreError(f"{where} is not a readable kgviz trace ({type(error).__name__}: {error})")


def write_trace(data: dict[str, Any], path: str | Path) -> None:
    """Write `saved_trace` data to `path` (atomically)."""
    write_text_atomic(path, json.dumps(data, ensure_ascii=False))


def read_trace(path: str | Path) -> Any:
    """The JSON data at `path`; a clear error for a file that is not JSON."""
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise RunStoreError(f"cannot read trace {path}: {error.strerror}") from error
    except (ValueError, UnicodeDecodeError) as error:
        raise RunStoreError(f"{path} is not a JSON trace") from error
