"""Early stopping keeps the best epoch's weights and stops after `patience` epochs without a
better validation score."""

from __future__ import annotations

import pytest
import torch

from kgviz.training.early_stopping import EarlyStopping


def test_keeps_the_best_epoch_and_stops_after_patience():
    model = torch.nn.Linear(2, 1)
    stopping: EarlyStopping[dict] = EarlyStopping(patience=2)
    with pytest.raises(RuntimeError, match="no epoch ran"):
        stopping.best()
    outcomes = []
    for epoch, score in enumerate([0.1, 0.5, 0.4, 0.5, 0.3], start=1):
        with torch.no_grad():
            model.weight.fill_(float(epoch))  # the weights of this epoch
        outcomes.append(stopping.should_stop(epoch, score, {"score": score}, model))
    assert outcomes == [False, False, False, True, True]  # a tie does not count as better
    scores, state, epoch = stopping.best()
    assert epoch == 2 and scores == {"score": 0.5}
    assert torch.equal(state["weight"], torch.full((1, 2), 2.0))  # a copy, not the live weights
