"""Training the NNUE: the fit learns its data, and the quantised network the search runs
scores as the float network trained."""

from __future__ import annotations

import numpy as np
import pytest

from engine.core.state import TURN
from engine.core.walk import random_line
from engine.eval.evaluate import centipawns, squash
from engine.eval.nnue import kernel_arrays, logit_with, refresh_with
from engine.learn.nnue_data import pack_record, states_of, unique
from engine.learn.nnue_fit import FitConfig, FitError, fit, random_network, tensors
from engine.learn.players import GameRecord
from engine.rules.convert import state_from_fen

torch = pytest.importorskip("torch", reason="the train extra (PyTorch) is not installed")

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def positions(count: int, seed: int = 3) -> np.ndarray:
    """Random-game positions labelled with the hand evaluation (a target the network can
    learn: material and piece-square tables) and a coin-flip result."""
    rng = np.random.default_rng(seed)
    start = state_from_fen(START, "chess")
    states = []
    while len(states) < count:
        states.append(random_line(start, int(rng.integers(4, 80)), rng)[-1])
    states_a = np.array(states)
    scores = np.array([squash(centipawns(s)) for s in states_a])
    rows = unique(pack_record(GameRecord(states_a, scores, 0.5, len(states)), 0))
    rows["game"] = np.arange(len(rows)) % 100  # as many games: some are held out
    return rows


def test_training_inputs_sum_to_the_searchs_accumulators() -> None:
    """The inputs training feeds the network are the ones the search's accumulators sum:
    the same columns for the side to move and for the other side."""
    records = positions(50)
    ft, bias, *_ = kernel_arrays(random_network(8))
    us, them, _ = tensors(records, 0.0)
    padded = np.vstack([ft.astype(np.int64), np.zeros((1, ft.shape[1]), np.int64)])
    acc = np.zeros((2, ft.shape[1]), dtype=np.int32)
    for i, s in enumerate(states_of(records)):
        refresh_with(s, acc, ft, bias)
        side = int(s[TURN])
        assert np.array_equal(padded[us[i]].sum(axis=0) + bias, acc[side])
        assert np.array_equal(padded[them[i]].sum(axis=0) + bias, acc[1 - side])


def test_the_fit_learns_and_the_quantised_network_matches_the_float_one() -> None:
    records = positions(3000)
    config = FitConfig(hidden=16, epochs=6, batch=256, lr=5e-3, lam=0.0, holdout=10)
    result = fit(records, config, command="test", meta={"data": "random games"})
    assert result.held_loss[-1] < result.held_loss[0]
    assert result.train_loss[-1] < 0.5 * result.train_loss[0]
    w = result.weights
    assert w.meta["data"] == "random games" and w.meta["positions"] == len(records)
    # The quantised network, run by the search's own kernels, against the float targets
    ft, bias, out, out_bias, qa, qp = kernel_arrays(w)
    _, _, target = tensors(records[:200], 0.0)
    acc = np.zeros((2, ft.shape[1]), dtype=np.int32)
    errors = []
    for i, s in enumerate(states_of(records[:200])):
        refresh_with(s, acc, ft, bias)
        p = 1.0 / (1.0 + np.exp(-logit_with(acc, int(s[TURN]), out, out_bias, qa, qp)))
        errors.append((p - target[i]) ** 2)
    assert float(np.mean(errors)) < 1.5 * result.train_loss[-1] + 1e-3


def test_too_few_positions_or_bad_settings_are_refused() -> None:
    with pytest.raises(FitError, match="too few"):
        fit(positions(1), FitConfig())
    with pytest.raises(FitError, match=r"lam must be 0\.\.1; got 2"):
        fit(positions(10), FitConfig(lam=2.0))
