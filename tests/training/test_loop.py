"""The shared epoch loop: seeded order, one optimiser step per batch, early stopping on the
schedule's metric, and the best epoch's weights and validation kept."""

from __future__ import annotations

import numpy as np
import torch

from kgviz.training.loop import Schedule, Validation, fit


def test_fit_keeps_the_best_epoch_and_stops_after_patience():
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    inputs, targets = torch.randn(10, 3), torch.randn(10)
    batches: list[list[int]] = []
    weights_after: list[torch.Tensor] = []
    scores = iter([0.1, 0.5, 0.4, 0.3, 0.9])

    def loss_of(batch: np.ndarray) -> torch.Tensor:
        batches.append(batch.tolist())
        return torch.nn.functional.mse_loss(model(inputs[batch]).squeeze(-1), targets[batch])

    def validate() -> Validation:
        weights_after.append(model.weight.detach().clone())
        score = next(scores)
        return Validation({"score": score}, {"all": {"score": score}})

    schedule = Schedule(lr=0.1, batch=4, epochs=5, patience=2, metric="score")
    fitted = fit(model, loss_of, validate, 10, schedule, np.random.default_rng(0), "q")

    assert fitted.best_epoch == 2 and fitted.best.scores == {"all": {"score": 0.5}}
    assert [row["epoch"] for row in fitted.history] == [1, 2, 3, 4]  # stopped before epoch 5
    assert [row["score"] for row in fitted.history] == [0.1, 0.5, 0.4, 0.3]
    assert len(batches) == 4 * 3 and [len(b) for b in batches[:3]] == [4, 4, 2]
    first_epoch = [index for batch in batches[:3] for index in batch]
    assert sorted(first_epoch) == list(range(10))  # each epoch sees every sample once
    assert batches[:3] != batches[3:6]  # in a new order
    assert torch.equal(model.weight, weights_after[1]) and not model.training
