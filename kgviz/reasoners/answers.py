"""Which KG entities an answer text commits to: evidence entities named in the answer."""

from __future__ import annotations

import re
from collections.abc import Iterable


def mentioned_entities(answer_text: str, candidates: Iterable[str]) -> list[str]:
    """Candidates named in `answer_text` (whole-word, case-insensitive), longest names first.

    A shorter name inside a longer matched one (`Paris` in `Paris, Texas`) does not count twice.
    """
    text = answer_text.casefold()
    taken = [False] * len(text)
    found: list[str] = []
    for name in sorted(set(candidates), key=lambda n: (-len(n), n)):
        needle = name.casefold().strip()
        if not needle:
            continue
        pattern = re.compile(rf"(?<!\w){re.escape(needle)}(?!\w)")
        for match in pattern.finditer(text):
            if not any(taken[match.start():match.end()]):
                taken[match.start():match.end()] = [True] * (match.end() - match.start())
                found.append(name)
                break
    order = {name: answer_text.casefold().find(name.casefold()) for name in found}
    return sorted(found, key=lambda name: order[name])
