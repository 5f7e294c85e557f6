"""Pick a backend from a `--llm` spec, explain the choice, and report what is usable."""

from __future__ import annotations

import importlib.metadata
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kgviz.errors import UnknownNameError
from kgviz.llm.base import LLM
from kgviz.llm.cache import CachedLLM, CacheMode
from kgviz.llm.errors import LLMError
from kgviz.llm.llamacpp_backend import LlamaCppBackend
from kgviz.llm.model_files import MODELS, get_spec, model_status, prepare_command
from kgviz.llm.ollama_backend import OllamaBackend, default_ollama_model, ollama_host
from kgviz.llm.openai_backend import OpenAIBackend
from kgviz.llm.redact import redact_text, redact_url

LOCAL_MODEL_ENV = "KGVIZ_LOCAL_MODEL"
PROBE_TIMEOUT_S = 2.0


@dataclass
class Choice:
    """The backend a spec resolved to and a one-line reason, for the user."""

    llm: LLM
    reason: str


def default_local_model() -> str:
    return os.environ.get(LOCAL_MODEL_ENV) or "qwen2.5-coder-1.5b"


def probe_ollama(model: str, host: str | None = None) -> tuple[bool, bool, str]:
    """(server answers, model pulled, detail) with a short timeout."""
    probe = OllamaBackend(model, host=host, timeout_s=PROBE_TIMEOUT_S)
    try:
        pulled = probe.has_model()
    except LLMError as exc:
        return False, False, str(exc)
    if pulled:
        return True, True, f"Ollama at {redact_url(probe.host)} has {model}"
    return (
        True,
        False,
        f"Ollama at {redact_url(probe.host)} answers but has no {model}: run `ollama pull {model}`",
    )


def _auto(rest: str, slots: int | None) -> Choice:
    if rest:
        raise ValueError(rest)
    model = default_ollama_model()
    _, pulled, detail = probe_ollama(model)
    if pulled:
        return Choice(OllamaBackend(model), f"auto chose {detail}")
    local = LlamaCppBackend(default_local_model(), slots=slots)
    return Choice(local, f"auto chose the offline model {local.model} (llama.cpp) because {detail}")


def _ollama(rest: str, slots: int | None) -> Choice:
    llm = OllamaBackend(rest or None)
    return Choice(llm, f"{llm.where}, model {llm.model} (as requested)")


def _local(rest: str, slots: int | None) -> Choice:
    name = rest or default_local_model()
    return Choice(
        LlamaCppBackend(get_spec(name).name, slots=slots),
        f"offline model {name} (llama.cpp, as requested)",
    )


def _hf(rest: str, slots: int | None) -> Choice:
    from kgviz.llm.hf_backend import HFBackend

    name = rest or default_local_model()
    return Choice(
        HFBackend(get_spec(name).name),
        f"offline model {name} (transformers, white-box: takes soft prompts; as requested)",
    )


def _openai(rest: str, slots: int | None) -> Choice:
    url, _, model = rest.rpartition("#")
    if not (url and model):
        raise ValueError(rest)
    return Choice(
        OpenAIBackend(url, model),
        f"OpenAI-compatible {redact_url(url)}, model {model} (as requested)",
    )


@dataclass(frozen=True)
class BackendKind:
    """One kind of `--llm` spec: its prefix, its grammar, what it is, how it is made
    (`make(rest, slots)`, `rest` being what follows `prefix:`; ValueError for a bad `rest`), and
    the name its backend records in a run (`LLM.name`), when a run's LLM can be asked again."""

    prefix: str
    grammar: str
    summary: str
    make: Callable[[str, int | None], Choice]
    recorded_as: str = ""


# The one table of LLM backends: `--llm`'s help, the lab's picker and `kgviz doctor` read it.
BACKENDS = (
    BackendKind("auto", "auto", "Ollama if a server answers with the model, else offline", _auto),
    BackendKind(
        "ollama",
        "ollama[:MODEL]",
        "an Ollama server (OLLAMA_HOST, KGVIZ_OLLAMA_MODEL)",
        _ollama,
        "ollama",
    ),
    BackendKind(
        "local", "local[:NAME]", "an offline model in-process (llama.cpp)", _local, "llamacpp"
    ),
    BackendKind(
        "hf",
        "hf[:NAME]",
        "the same offline model in PyTorch (transformers): slower, white-box (soft prompts)",
        _hf,
        "hf",
    ),
    BackendKind("openai", "openai:URL#MODEL", "an OpenAI-compatible server", _openai),
)
SPEC_HELP = " | ".join(kind.grammar for kind in BACKENDS)


def backend_kind(prefix: str) -> BackendKind:
    """The table's entry for `prefix` (`ollama`, `local`, ...)."""
    for kind in BACKENDS:
        if kind.prefix == prefix:
            return kind
    raise UnknownNameError(f"unknown LLM backend {prefix!r}; expected {SPEC_HELP}")


def spec_of_recorded(llm: str) -> str:
    """The `--llm` spec that asks the LLM a run records (`backend:model`, as `LLM.describe`
    names it) again: `llamacpp:M` is `local:M`. A server whose address a run does not keep in
    full (an OpenAI-compatible one) has none: a one-line error says to name it."""
    backend, _, model = llm.partition(":")
    for kind in BACKENDS:
        if kind.recorded_as and kind.recorded_as == backend and model:
            return f"{kind.prefix}:{model}"
    raise UnknownNameError(f"say which LLM to use with --llm (the run used {llm})")


def _choose(spec: str, slots: int | None = None) -> Choice:
    """`slots`: requests the offline model serves at once (None: its default)."""
    prefix, colon, rest = spec.strip().partition(":")
    kind = backend_kind(prefix)
    if colon and not rest.strip():  # "hf:" names no model: say so rather than pick the default
        raise UnknownNameError(
            f"bad --llm value {redact_text(spec)!r}: nothing after '{prefix}:'; expected "
            f"{kind.grammar}"
        )
    try:
        return kind.make(rest, slots)
    except ValueError:
        raise UnknownNameError(
            f"bad --llm value {redact_text(spec)!r}; expected {kind.grammar}"
        ) from None


def choose_llm(
    spec: str = "auto",
    *,
    cache_mode: CacheMode = "off",
    cache_dir: str | Path | None = None,
    slots: int | None = None,
) -> Choice:
    """Resolve `spec` (see `SPEC_HELP`) to a backend, wrapped in a response cache unless "off".
    `slots` sets how many requests the offline model serves at once."""
    choice = _choose(spec, slots)
    if cache_mode != "off":
        choice.llm = CachedLLM(choice.llm, cache_dir, cache_mode)
    return choice


def make_llm(
    spec: str = "auto", *, cache_mode: CacheMode = "off", cache_dir: str | Path | None = None
) -> LLM:
    """The LLM for `spec`; use `choose_llm` to also get the reason for the choice."""
    return choose_llm(spec, cache_mode=cache_mode, cache_dir=cache_dir).llm


def _row(component: str, ok: bool, detail: str, fix: str = "") -> dict[str, str]:
    return {
        "component": component,
        "status": "ok" if ok else "missing",
        "detail": detail,
        "fix": "" if ok else fix,
    }


def _runtime_row() -> dict[str, str]:
    try:
        return _row(
            "llama.cpp runtime", True, f"xllamacpp {importlib.metadata.version('xllamacpp')}"
        )
    except importlib.metadata.PackageNotFoundError:
        return _row(
            "llama.cpp runtime",
            False,
            "xllamacpp is not installed",
            "pip install xllamacpp==2026.10.11549",
        )


def _white_box_row() -> dict[str, str]:
    from kgviz.llm.hf_backend import INSTALL, NEEDS, missing_packages

    missing = missing_packages()
    if missing:
        return _row("white-box runtime (hf)", False, f"{' and '.join(missing)} missing", INSTALL)
    versions = ", ".join(f"{name} {importlib.metadata.version(name)}" for name in NEEDS)
    return _row("white-box runtime (hf)", True, f"transformers reads GGUF ({versions})")


def doctor_report() -> list[dict[str, str]]:
    """Rows (component, status ok|missing, detail, fix) on every LLM backend and offline model."""
    model = default_ollama_model()
    answers, pulled, detail = probe_ollama(model)
    rows = [
        _row(
            "ollama server",
            answers,
            f"{redact_url(ollama_host())} answers" if answers else detail,
            "install Ollama and run `ollama serve`, or set OLLAMA_HOST",
        ),
        _row(
            f"ollama model {model}",
            pulled,
            detail if answers else "no server to ask",
            f"ollama pull {model} (or set KGVIZ_OLLAMA_MODEL)",
        ),
        _runtime_row(),
        _white_box_row(),
    ]
    usable: dict[str, bool] = {}
    for name, spec in MODELS.items():
        usable[name], status = model_status(spec)
        rows.append(_row(f"offline model {name}", usable[name], status, prepare_command(name)))
    local = default_local_model()
    plan = f"Ollama model {model}" if pulled else f"the offline model {local}"
    rows.append(
        _row(
            "llm auto",
            pulled or usable.get(local, False),
            f"would use {plan}",
            f"{prepare_command(local)}, or start Ollama with {model}, or name a backend with "
            f"--llm {SPEC_HELP}",
        )
    )
    return rows
