"""The LLM picker: auto, an offline model, the models an Ollama server has, or an OpenAI URL."""

from __future__ import annotations

import ipywidgets as widgets

from kgviz.llm import OllamaBackend
from kgviz.llm.errors import LLMError
from kgviz.llm.model_files import MODELS
from kgviz.llm.select import PROBE_TIMEOUT_S, backend_kind, default_local_model

OPENAI = "openai"


def ollama_models(timeout_s: float = PROBE_TIMEOUT_S) -> list[str]:
    """The models a reachable Ollama server has pulled; none when no server answers in time."""
    try:
        return OllamaBackend(timeout_s=timeout_s).list_models()
    except LLMError:
        return []


def llm_options(ollama: list[str]) -> list[tuple[str, str]]:
    """(label, spec) pairs for the backend dropdown, labelled from the backend table."""
    return [
        (f"auto ({backend_kind('auto').summary})", "auto"),
        *((f"offline: {name}", f"local:{name}") for name in MODELS),
        *((f"white-box (transformers, soft prompts): {name}", f"hf:{name}") for name in MODELS),
        *((f"Ollama: {name}", f"ollama:{name}") for name in ollama),
        (f"{backend_kind(OPENAI).summary}: URL…", OPENAI),
    ]


class LLMPicker(widgets.HBox):
    """A backend dropdown; choosing the OpenAI-compatible entry reveals URL and model boxes."""

    def __init__(self, spec: str = "auto", ollama: list[str] | None = None) -> None:
        options = llm_options(ollama_models() if ollama is None else ollama)
        spec = f"local:{default_local_model()}" if spec == "local" else spec
        known = [value for _, value in options]
        if spec not in known:  # a spec given by the caller, e.g. "ollama:llama3" or "openai:..."
            options.insert(0, (spec, spec))
        self.backend = widgets.Dropdown(
            options=options, value=spec, description="LLM", layout=widgets.Layout(width="360px")
        )
        self.url = widgets.Text(
            placeholder="http://127.0.0.1:8080/v1",
            description="URL",
            layout=widgets.Layout(width="300px"),
        )
        self.model = widgets.Text(
            placeholder="model name", description="model", layout=widgets.Layout(width="220px")
        )
        self.backend.observe(lambda _: self._show_url(), "value")
        super().__init__([self.backend, self.url, self.model])
        self._show_url()

    def _show_url(self) -> None:
        shown = "flex" if self.backend.value == OPENAI else "none"
        self.url.layout.display = self.model.layout.display = shown

    @property
    def inputs(self) -> tuple[widgets.ValueWidget, ...]:
        """The widgets whose values make up the spec."""
        return (self.backend, self.url, self.model)

    @property
    def spec(self) -> str:
        """The `--llm` spec of the current choice (see `kgviz.llm.select.SPEC_HELP`)."""
        if self.backend.value == OPENAI:
            return f"openai:{self.url.value.strip()}#{self.model.value.strip()}"
        return self.backend.value
