"""The LLM layer: one `complete()` interface over Ollama, in-process llama.cpp and
OpenAI-compatible servers, with a response cache and tolerant JSON parsing.

Names are imported on first use (PEP 562), so importing `kgviz.llm` (or anything that only needs
its base types) loads no backend and no client library.
"""

from __future__ import annotations

import importlib
from typing import Any

_HOMES = {
    "LLM": "base",
    "Completion": "completion",
    "Message": "base",
    "CachedLLM": "cache",
    "LLMCacheMiss": "errors",
    "LLMError": "errors",
    "LLMOutputError": "errors",
    "LLMTimeout": "errors",
    "LLMUnavailable": "errors",
    "ModelIntegrityError": "errors",
    "LlamaCppBackend": "llamacpp_backend",
    "MODELS": "model_files",
    "ModelSpec": "model_files",
    "prepare_model": "model_files",
    "verify_model": "model_files",
    "OllamaBackend": "ollama_backend",
    "OpenAIBackend": "openai_backend",
    "complete_json": "json_completion",
    "extract_json": "parsing",
    "validate": "parsing",
    "Choice": "select",
    "choose_llm": "select",
    "doctor_report": "select",
    "make_llm": "select",
}
__all__ = list(_HOMES)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'kgviz.llm' has no attribute {name!r}")
    return getattr(importlib.import_module(f"kgviz.llm.{home}"), name)
