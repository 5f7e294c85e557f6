"""A model's size in billions of parameters, read from its name ("qwen2.5-coder:1.5b", "7B")."""

from __future__ import annotations

import re

# "1.5b", ":7b", "-70B", "8x7b" (the size of one expert is taken): a number followed by b/B that
# is not part of a longer word or version ("bge-m3", "v2b" do not count).
SIZE = re.compile(r"(?<![\w.])(?:\d+x)?(\d+(?:\.\d+)?)\s*[bB](?![a-zA-Z0-9])")


def parameter_billions(model: str) -> float | None:
    """The parameter count a model name states, in billions, or None when it states none."""
    found = SIZE.findall(model.replace("_", "-"))
    return float(found[-1]) if found else None
