"""The LLM layer: one `complete()` interface over Ollama, in-process llama.cpp and
OpenAI-compatible servers, with a response cache and tolerant JSON parsing."""

from kgviz.llm.base import LLM, Completion, Message
from kgviz.llm.cache import CachedLLM
from kgviz.llm.errors import (
    LLMCacheMiss,
    LLMError,
    LLMOutputError,
    LLMTimeout,
    LLMUnavailable,
    ModelIntegrityError,
)
from kgviz.llm.llamacpp_backend import LlamaCppBackend
from kgviz.llm.model_files import MODELS, ModelSpec, prepare_model, verify_model
from kgviz.llm.ollama_backend import OllamaBackend
from kgviz.llm.openai_backend import OpenAIBackend
from kgviz.llm.parsing import complete_json, extract_json, validate
from kgviz.llm.select import Choice, choose_llm, describe_choice, doctor_report, make_llm

__all__ = [
    "LLM",
    "MODELS",
    "CachedLLM",
    "Choice",
    "Completion",
    "LLMCacheMiss",
    "LLMError",
    "LLMOutputError",
    "LLMTimeout",
    "LLMUnavailable",
    "LlamaCppBackend",
    "Message",
    "ModelIntegrityError",
    "ModelSpec",
    "OllamaBackend",
    "OpenAIBackend",
    "choose_llm",
    "complete_json",
    "describe_choice",
    "doctor_report",
    "extract_json",
    "make_llm",
    "prepare_model",
    "validate",
    "verify_model",
]
