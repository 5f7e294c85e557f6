"""A hub's candidates in greedy order (cost, then row) without sorting them all at once.

Up to `CHUNK` candidates are sorted in one go. Beyond that, blocks of doubling size are picked
out by partial selection (`np.partition`), a chunk at a time, and only each block is sorted, with
`check` (the search's deadline) called between chunks. A chunk is `CHUNK` values, or four times
the block once blocks grow past that: by then the search has spent far longer on the earlier
blocks than one numpy call on a chunk takes. A search that stops early, as pruning makes it,
never orders the rest (on a hub of 3M candidates the first block costs a few passes where one
`np.lexsort` took ~0.4 s).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

import numpy as np

CHUNK = 1 << 16
FIRST_BLOCK = 256

Check = Callable[[], None]


def greedy_blocks(cost: np.ndarray, row: np.ndarray, check: Check) -> Iterator[np.ndarray]:
    """Positions of the candidates in ascending (cost, row) order, a block at a time;
    `check()` runs between chunks of work and may raise to stop."""
    left = np.arange(len(cost))
    block = FIRST_BLOCK
    while len(left) > max(CHUNK, 2 * block):
        chosen, left = _split(cost, row, left, block, check)
        yield chosen[np.lexsort((row[chosen], cost[chosen]))]
        block *= 2
    check()
    yield left[np.lexsort((row[left], cost[left]))]


def _split(
    cost: np.ndarray, row: np.ndarray, left: np.ndarray, count: int, check: Check
) -> tuple[np.ndarray, np.ndarray]:
    """The `count` positions of `left` with the smallest (cost, row), and the other positions:
    those below the `count`-th cost, then the lowest rows among those tied at it."""
    size = max(CHUNK, 4 * count)
    value = _kth_smallest((cost[part] for part in _pieces(left, size, check)), count, check)
    below, tied_rows = 0, []
    for part in _pieces(left, size, check):
        costs = cost[part]
        below += int(np.count_nonzero(costs < value))
        tied_rows.append(row[part][costs == value])
    tied = np.concatenate(tied_rows)
    last_row = _kth_smallest(_pieces(tied, size, check), count - below, check)
    chosen, others = [], []
    for part in _pieces(left, size, check):
        costs = cost[part]
        taken = (costs < value) | ((costs == value) & (row[part] <= last_row))
        chosen.append(part[taken])
        others.append(part[~taken])
    return np.concatenate(chosen), np.concatenate(others)


def _kth_smallest(parts: Iterable[np.ndarray], k: int, check: Check) -> np.generic:
    """The `k`-th smallest value (1-based) of the values in `parts`: each part keeps its `k`
    smallest, and those are cut into parts again until they fit one (of `max(CHUNK, 4 * k)`)."""
    size = max(CHUNK, 4 * k)
    pool = np.concatenate([p if len(p) <= k else np.partition(p, k - 1)[:k] for p in parts])
    if len(pool) > size:
        return _kth_smallest(_pieces(pool, size, check), k, check)
    return np.partition(pool, k - 1)[k - 1]


def _pieces(values: np.ndarray, size: int, check: Check) -> Iterator[np.ndarray]:
    """`values` in slices of `size`, `check()` before each."""
    for start in range(0, len(values), size):
        check()
        yield values[start : start + size]
