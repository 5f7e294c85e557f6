"""The repetition guard: notice a reply that has started to loop ("The Champ, The Champ, …").

Small models under greedy decoding can repeat one phrase until the token limit. Such a reply
names whatever it repeats many times and costs the whole token budget. The guard looks at the
end of the text as it grows: when it is one unit of 4-200 characters repeated back to back
(at least 3 times and over at least 40 characters), the reply is looping. Generation stops there
(on backends that stream) and the reply keeps the text up to the end of the unit's first copy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

MIN_UNIT, MAX_UNIT = 4, 200
MIN_REPEATS, MIN_SPAN = 3, 40
WINDOW = MIN_REPEATS * MAX_UNIT + MIN_SPAN  # how much of the end a check looks at


def loop_start(text: str) -> int | None:
    """Where the repeated copies begin (after the first copy of the unit) when `text` ends in a
    loop, else None."""
    n = len(text)
    for period in range(MIN_UNIT, min(MAX_UNIT, n // MIN_REPEATS) + 1):
        repeats = max(MIN_REPEATS, math.ceil(MIN_SPAN / period))
        if repeats * period > n:
            continue
        unit = text[n - period :]
        if not unit.strip():
            continue
        if all(text[n - (i + 1) * period : n - i * period] == unit for i in range(1, repeats)):
            start = n - repeats * period  # then slide back while the text stays periodic
            while start > 0 and text[start - 1] == text[start - 1 + period]:
                start -= 1
            return start + period
    return None


@dataclass
class LoopGuard:
    """Feeds on a streamed reply; `add` says whether to stop (the text has started to loop).
    With `watching` off it only collects the text."""

    watching: bool = True
    text: str = ""
    looped: bool = False

    def add(self, delta: str) -> bool:
        self.text += delta
        if not self.watching:
            return False
        window = self.text[-WINDOW:]
        start = loop_start(window)
        if start is None:
            return False
        self.text = self.text[: len(self.text) - len(window) + start].rstrip()
        self.looped = True
        return True

    def add_whole(self, text: str, step: int = 16) -> bool:
        """`add` for a long piece (a reply that arrived whole): fed `step` characters at a time,
        as a stream would feed it tokens, so a loop is seen wherever it ends."""
        return any(self.add(text[start : start + step]) for start in range(0, len(text), step))


def cut_loop(text: str) -> tuple[str, bool]:
    """`text` cut after the first copy of a loop, and whether it had one, for replies that arrive
    whole."""
    guard = LoopGuard()
    looped = guard.add_whole(text)
    return guard.text, looped
