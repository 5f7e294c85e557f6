"""LLM only: the question straight to the LLM, no retrieval (the baseline)."""
