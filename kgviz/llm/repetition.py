"""The repetition guard: notice a reply that has started to loop ("The Champ, The Champ, …").

Small models under greedy decoding can repeat one phrase until the token limit. Such a reply
names whatever it repeats many times and costs the whole token budget. The guard looks at the
end of the text as it grows: when it is one unit of 4-200 characters repeated back to back
(at least 3 times and over at least 40 characters), the reply is looping. Generation stops there
(on backends that stream) and the reply keeps the text up to the end of the unit's first copy.
A reply counting ("ans: 2018", "ans: 2019", … : 12 units of up to 50 characters that differ
only in numbers stepping by one) is stopped too, keeping what it has counted, since a run of
consecutive years can be a true answer.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from itertools import pairwise

MIN_UNIT, MAX_UNIT = 4, 200
MIN_REPEATS, MIN_SPAN = 3, 40
MIN_COUNT, COUNT_UNIT = 12, 50  # units of a counting run, and their longest
WINDOW = max(MIN_REPEATS * MAX_UNIT + MIN_SPAN, MIN_COUNT * COUNT_UNIT)  # the end a check reads
NUMBER = re.compile(r"\d+")
DIGIT = re.compile(r"\d")
CLOSING = ")]}"  # brackets that end a counted item


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


def counting_end(text: str) -> int | None:
    """Where a reply that counts stops, when `text` ends in `MIN_COUNT` units that differ only
    in numbers, each unit's numbers one step (of -1, 0 or 1 per number, not all 0) from the
    last's: the end of its last whole line, else of its last closing bracket,
    else of its last number that something follows; else None."""
    n = len(text)
    masked = DIGIT.sub("0", text)  # units of one shape make this periodic
    for period in range(MIN_UNIT, min(COUNT_UNIT, n // MIN_COUNT) + 1):
        span = MIN_COUNT * period
        if masked[n - span : n - period] != masked[n - span + period :]:
            continue
        units = [text[n - (i + 1) * period : n - i * period] for i in reversed(range(MIN_COUNT))]
        if DIGIT.match(units[0]) and DIGIT.match(units[0][-1]):
            continue  # units beginning inside a number
        if _counting_step(units) is None:
            continue
        if "\n" in units[0]:  # keep whole lines
            return text.rindex("\n")
        closing = [i for i in range(n - period, n) if text[i] in CLOSING]
        if closing:  # keep whole bracketed items
            return closing[-1] + 1
        return max(m.end() for m in NUMBER.finditer(text, n - 2 * period) if m.end() < n)
    return None


def _counting_step(units: list[str]) -> tuple[int, ...] | None:
    """The one step between the numbers of consecutive `units` (of one shape, digits aside), if
    they count."""
    if not NUMBER.search(units[0]):
        return None
    numbers = [[int(x) for x in NUMBER.findall(unit)] for unit in units]
    steps = {tuple(b - a for a, b in zip(x, y)) for x, y in pairwise(numbers)}
    step = steps.pop() if len(steps) == 1 else None
    return step if step and set(step) <= {-1, 0, 1} and any(step) else None


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
        cut = loop_start(window)
        if cut is None:
            cut = counting_end(window)
        if cut is None:
            return False
        self.text = self.text[: len(self.text) - len(window) + cut].rstrip()
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
