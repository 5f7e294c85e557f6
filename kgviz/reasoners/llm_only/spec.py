"""The LLM-only baseline as kgviz knows it: the registry's entry for this folder."""

from kgviz.reasoners.presets import PAPER, Preset, tuned
from kgviz.reasoners.spec import MethodSpec

SPEC = MethodSpec(
    name="llm-only",
    summary="the question straight to the LLM, no retrieval (baseline)",
    reasoner="kgviz.reasoners.llm_only.reasoner:LLMOnly",
    prompts="kgviz.reasoners.prompting:baseline_prompts",
    config="kgviz.reasoners.llm_only.config:LLMOnlyConfig",
    presets=(
        tuned("kgviz's defaults."),
        Preset(PAPER, "The same as tuned: a baseline with no paper of its own."),
    ),
)
