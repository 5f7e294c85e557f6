"""Ranking by score with ties broken by name, where near-equal scores count as ties.

The same text gets vectors that differ in the last bits when it is encoded beside other texts
(padding changes the arithmetic), so the same KG read in another order (a file, an endpoint)
scores the same candidates a few 1e-7 apart. Scores closer than `TIE_TOLERANCE` are a tie, and a
tie is ordered by name: the ranking is then the same however the KG was read.
"""

from __future__ import annotations

import numpy as np

TIE_TOLERANCE = 1e-5


def best_first(
    scores: np.ndarray, name_ranks: np.ndarray, tolerance: float = TIE_TOLERANCE
) -> np.ndarray:
    """Positions of `scores`, highest first; a run of scores each within `tolerance` of the
    next one up is a tie, ordered by `name_ranks` (the candidates' places in name order)."""
    scores = np.asarray(scores, dtype=np.float64)
    order = np.argsort(-scores, kind="stable")
    starts = np.concatenate([[0], np.cumsum(-np.diff(scores[order]) > tolerance)])
    tie = np.empty(len(scores), dtype=np.int64)
    tie[order] = starts
    return np.lexsort((np.asarray(name_ranks), tie))
