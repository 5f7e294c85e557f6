"""What a run ran with: its preset, every option's value, the code, the LLM and its model file,
and the checkpoint's card. Traces and result rows record it; `kgviz report` pools only rows of
one setting."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from kgviz.llm.base import LLM
from kgviz.llm.model_files import verified_sha256
from kgviz.reasoners.base import Reasoner
from kgviz.trace import Trace
from kgviz.version import code_version


def llm_identity(llm: LLM) -> str:
    """Which model answers: backend and model name (threads, cache and timeouts do not change
    what it replies)."""
    return f"{llm.name}:{llm.model}"


@dataclass(frozen=True)
class RunSetting:
    """`options`: every option of the method's config as the run resolved it (not only those
    set); `code`: `code_version()` (version, commit, `.dirty`); `llm_sha256`: the verified
    model file's hash ('' for a model kgviz does not hold); `card_sha256`: the learned
    checkpoint's card ('' for a method that learns nothing)."""

    preset: str
    options: dict[str, Any]
    code: str
    llm: str
    llm_sha256: str
    card_sha256: str

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def run_setting(reasoner: Reasoner[Any], preset: str, llm: LLM, trace: Trace) -> RunSetting:
    """The setting of `trace`, a run of `reasoner` under `preset` with `llm`."""
    return RunSetting(
        preset=preset,
        options=asdict(reasoner.config),
        code=code_version(),
        llm=llm_identity(llm),
        llm_sha256=verified_sha256(llm.name, llm.model),
        card_sha256=trace.card_sha256,
    )
