"""How sure a comparison is: intervals for a hit rate, exact paired tests between methods."""

from __future__ import annotations

from itertools import combinations
from math import comb, sqrt

import pandas as pd

Z_95 = 1.959964


def wilson_interval(hits: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a hit rate (95% by default); (0, 1) when `n` is 0."""
    if n == 0:
        return 0.0, 1.0
    rate, spread = hits / n, z * z / n
    centre = (rate + spread / 2) / (1 + spread)
    half = z * sqrt(rate * (1 - rate) / n + spread / (4 * n)) / (1 + spread)
    return max(0.0, centre - half), min(1.0, centre + half)


def exact_mcnemar(only_first: int, only_second: int) -> float:
    """Two-sided p-value of the exact McNemar test: under 'equally good', each question that
    exactly one method got right is a fair coin toss between them."""
    discordant = only_first + only_second
    if discordant == 0:
        return 1.0
    tail = sum(comb(discordant, i) for i in range(min(only_first, only_second) + 1))
    return min(1.0, 2 * tail / 2**discordant)


def paired_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Every pair of methods on the questions both answered: their Hits@1, how many questions
    only one of them got right, and the exact McNemar p-value of the difference."""
    columns = [
        "method",
        "vs",
        "n",
        "hits@1",
        "vs hits@1",
        "only method right",
        "only vs right",
        "p (exact McNemar)",
    ]
    hits = frame.pivot_table(
        index="qid", columns="method", values="hits@1", aggfunc="first", observed=True
    )
    lines = []
    for first, second in combinations(hits.columns, 2):
        both = hits[[first, second]].dropna().astype(bool)
        only_first = int((both[first] & ~both[second]).sum())
        only_second = int((both[second] & ~both[first]).sum())
        lines.append(
            [
                first,
                second,
                len(both),
                both[first].mean(),
                both[second].mean(),
                only_first,
                only_second,
                exact_mcnemar(only_first, only_second),
            ]
        )
    return pd.DataFrame(lines, columns=columns).set_index(["method", "vs"])
