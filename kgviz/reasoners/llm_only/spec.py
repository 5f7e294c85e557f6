"""The LLM-only baseline as kgviz knows it: the registry's entry for this folder."""

from kgviz.reasoners.spec import MethodSpec

SPEC = MethodSpec(
    name="llm-only",
    summary="the question straight to the LLM, no retrieval (baseline)",
    reasoner="kgviz.reasoners.llm_only.reasoner:LLMOnly",
    config="kgviz.reasoners.llm_only.config:LLMOnlyConfig",
)
