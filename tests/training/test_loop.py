"""The shared epoch loop: seeded order, one optimiser step per batch, early stopping on the
schedule's metric, and the best epoch's weights and validation kept."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from kgviz.errors import KgvizError
from kgviz.training.loop import Schedule, Validation, fit
from kgviz.training.saved_progress import SavedProgress


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


def test_an_interrupted_fit_resumes_after_its_last_epoch_as_if_never_stopped(tmp_path):
    """Each finished epoch is saved; the same command goes on from the next one and ends with
    the weights, history and best epoch of an uninterrupted run, and clears what it saved."""
    inputs, targets = torch.randn(12, 3), torch.randn(12)
    schedule = Schedule(lr=0.05, batch=4, epochs=4, patience=4, metric="score")

    def train(saved, stop_at: int | None = None):
        torch.manual_seed(0)
        model = torch.nn.Linear(3, 1)

        def loss_of(batch: np.ndarray) -> torch.Tensor:
            return torch.nn.functional.mse_loss(model(inputs[batch]).squeeze(-1), targets[batch])

        def validate() -> Validation:
            if stop_at is not None and validate.calls == stop_at:
                raise KeyboardInterrupt  # the run stopped during this epoch's validation
            validate.calls += 1
            score = -float(torch.nn.functional.mse_loss(model(inputs).squeeze(-1), targets))
            return Validation({"score": score}, {"score": score})

        validate.calls = 0
        rng = np.random.default_rng(7)
        return model, fit(model, loss_of, validate, 12, schedule, rng, "q", saved)

    whole_model, whole = train(None)
    saved = SavedProgress(tmp_path, "kgviz train toy --seed 7")
    with pytest.raises(KeyboardInterrupt):
        train(saved, stop_at=2)  # epochs 1 and 2 finished and saved; 3 interrupted
    assert saved.load()["epoch"] == 2
    resumed_model, resumed = train(saved)
    assert torch.equal(resumed_model.weight, whole_model.weight)
    assert resumed.history == whole.history and resumed.best_epoch == whole.best_epoch
    assert not saved.path.exists()
    with pytest.raises(KgvizError, match="holds the progress of `kgviz train toy --seed 7`"):
        saved.save(epoch=1)
        SavedProgress(tmp_path, "kgviz train toy --seed 8").load()
    (tmp_path / "a-file").write_text("")  # a folder that cannot be made: a one-line error
    with pytest.raises(KgvizError, match="progress.pt"):
        SavedProgress(tmp_path / "a-file", "kgviz train toy").save(epoch=1)
