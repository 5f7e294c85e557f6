"""Ranking by score with near-ties ordered by name."""

from __future__ import annotations

import numpy as np

from kgviz.reasoners.ranking import best_first


def test_scores_within_the_tolerance_are_ordered_by_name():
    scores = np.array([0.5, 0.9, 0.5 + 3e-7, 0.7])
    assert best_first(scores, np.array([3, 0, 1, 2])).tolist() == [1, 3, 2, 0]
    assert best_first(scores, np.array([1, 0, 3, 2])).tolist() == [1, 3, 0, 2]


def test_distinct_scores_keep_their_order_whatever_the_names():
    scores = np.array([0.1, 0.4, 0.3, 0.2])
    for ranks in ([0, 1, 2, 3], [3, 2, 1, 0]):
        assert best_first(scores, np.array(ranks)).tolist() == [1, 2, 3, 0]


def test_a_permuted_input_gives_the_same_ranking_by_name():
    rng = np.random.default_rng(0)
    scores = np.round(rng.random(200), 2) + rng.normal(0, 1e-7, 200)  # many near-ties
    names = rng.permutation(200)
    ranked = names[best_first(scores, names)]
    shuffle = rng.permutation(200)
    assert np.array_equal(names[shuffle][best_first(scores[shuffle], names[shuffle])], ranked)
