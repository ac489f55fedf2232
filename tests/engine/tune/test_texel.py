"""Texel's fit: on synthetic games drawn from known weights, it finds those weights."""

from __future__ import annotations

import numpy as np
import pytest

from engine.tune.fitting import game_ids
from engine.tune.texel import (
    PRIORS,
    choose_prior,
    design_matrix,
    fit_k,
    fit_weights,
    mse,
    predict,
)


def synthetic(k: float, w: np.ndarray, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions with random features and results drawn from ``sigmoid(K·x w)``."""
    rng = np.random.default_rng(seed)
    features = rng.normal(0.0, 1.0, size=(n, len(w) // 2)) * np.array([1.0, 3.0, 10.0])
    phase = rng.uniform(0, 24, size=n)
    x = design_matrix(features, phase)
    p = predict(x, w, k)
    # Results as in chess: a win, a draw or a loss, with the expected score p.
    u = rng.uniform(size=n)
    draw = 0.3 * np.minimum(p, 1 - p) * 2
    results = np.where(u < p - draw / 2, 1.0, np.where(u < p + draw / 2, 0.5, 0.0))
    return x, results


TRUE = np.array([120.0, -15.0, 4.0, 200.0, 5.0, -2.0])  # mg weights, then eg weights


def test_fit_recovers_known_weights_from_their_games() -> None:
    x, results = synthetic(1.0, TRUE, 40_000, seed=3)
    fit = fit_weights(x, results, 1.0, np.zeros_like(TRUE), prior=0.0)
    assert fit.weights == pytest.approx(TRUE, rel=0.1, abs=1.0)
    assert mse(x, results, fit.weights, 1.0) <= mse(x, results, TRUE, 1.0)


def test_fit_k_finds_the_scale_of_the_sigmoid() -> None:
    x, results = synthetic(1.6, TRUE, 40_000, seed=4)
    assert fit_k(x, results, TRUE) == pytest.approx(1.6, rel=0.1)


def test_prior_pulls_towards_the_start_and_nothing_else() -> None:
    x, results = synthetic(1.0, TRUE, 5_000, seed=5)
    free = fit_weights(x, results, 1.0, np.zeros_like(TRUE), prior=0.0).weights
    held = fit_weights(x, results, 1.0, np.zeros_like(TRUE), prior=100.0).weights
    assert np.all(np.abs(held) < np.abs(free))


def test_same_data_give_the_same_weights() -> None:
    x, results = synthetic(1.0, TRUE, 5_000, seed=6)
    a = fit_weights(x, results, 1.0, np.zeros_like(TRUE)).weights
    b = fit_weights(x, results, 1.0, np.zeros_like(TRUE)).weights
    assert np.array_equal(a, b)


def test_game_ids_split_rows_where_a_game_starts_over() -> None:
    assert game_ids(np.array([0, 1, 2, 0, 1, 0])).tolist() == [0, 0, 0, 1, 1, 2]


def test_cross_validation_trusts_plentiful_data_over_a_wrong_start() -> None:
    x, results = synthetic(1.0, TRUE, 20_000, seed=7)
    games = np.arange(len(results)) // 50  # 50 positions a game
    prior, errors = choose_prior(x, results, games, 1.0, np.zeros_like(TRUE))
    assert prior == min(errors) == min(PRIORS)
    assert errors[min(PRIORS)] < errors[max(PRIORS)]
