"""Traces as versioned JSON: save a run, load it back later or elsewhere, and draw it again.

Stage records are dataclasses of kgviz's own modules. Each is written with its type
(`{"__record__": "kgviz.reasoners....:Class", ...fields}`), numpy arrays with their dtype, and
tuples as tagged lists, so that `load_trace` rebuilds the same records for `stage_views`. Only
types under `kgviz.` are rebuilt: a trace file cannot make kgviz import anything else.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from kgviz.atomic import write_text_atomic
from kgviz.errors import KgvizError
from kgviz.trace import LLMCall, Trace

FORMAT = "kgviz-trace"
VERSION = 1


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
    raise KgvizError(f"cannot save a {type(value).__name__} in a trace")


def _record_type(name: str) -> type:
    module_name, _, qualname = name.partition(":")
    if not (module_name == "kgviz" or module_name.startswith("kgviz.")):
        raise KgvizError(f"trace names a record type outside kgviz: {name!r}")
    try:
        target: Any = importlib.import_module(module_name)
        for part in qualname.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError) as error:
        raise KgvizError(f"trace names an unknown record type {name!r} "
                         "(saved by another kgviz version?)") from error
    if not (isinstance(target, type) and dataclasses.is_dataclass(target)):
        raise KgvizError(f"trace names {name!r}, which is not a record type")
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


def trace_json(trace: Trace) -> dict[str, Any]:
    """Everything `trace` recorded, as JSON-able data with its format and version."""
    return {"format": FORMAT, "version": VERSION, "method": trace.method,
            "question": trace.question, "dataset": trace.dataset,
            "stages": {name: _encode(record) for name, record in trace.stages.items()},
            "timings": dict(trace.timings),
            "llm_calls": [_encode(call) for call in trace.llm_calls],
            "evidence": [list(triple) for triple in trace.evidence], "answer": trace.answer,
            "answers": list(trace.answers), "warnings": list(trace.warnings)}


def trace_from_json(data: Any, where: str = "trace") -> Trace:
    """The `Trace` that `trace_json` wrote."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise KgvizError(f"{where} is not a kgviz trace")
    if data.get("version") != VERSION:
        raise KgvizError(f"{where} is a version {data.get('version')} trace; this kgviz reads "
                         f"version {VERSION}")
    try:
        calls = [_decode(call) for call in data["llm_calls"]]
        if not all(isinstance(call, LLMCall) for call in calls):
            raise KgvizError(f"{where}: llm_calls must hold LLM call records")
        return Trace(method=str(data["method"]), question=str(data["question"]),
                     dataset=str(data.get("dataset", "")),
                     stages={str(name): _decode(record)
                             for name, record in data["stages"].items()},
                     timings={str(k): float(v) for k, v in data["timings"].items()},
                     llm_calls=calls,
                     evidence=[(str(h), str(r), str(t)) for h, r, t in data["evidence"]],
                     answer=str(data["answer"]), answers=[str(a) for a in data["answers"]],
                     warnings=[str(w) for w in data["warnings"]])
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise KgvizError(f"{where} is not a readable kgviz trace ({type(error).__name__}: "
                         f"{error})") from error


def save_trace(trace: Trace, path: str | Path) -> None:
    """Write `trace` to `path` as versioned JSON (atomically)."""
    write_text_atomic(path, json.dumps(trace_json(trace), ensure_ascii=False))


def load_trace(path: str | Path) -> Trace:
    """The trace `save_trace` wrote to `path`; a clear error for anything else."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise KgvizError(f"cannot read trace {path}: {error.strerror}") from error
    except (ValueError, UnicodeDecodeError) as error:
        raise KgvizError(f"{path} is not a JSON trace") from error
    return trace_from_json(data, str(path))
