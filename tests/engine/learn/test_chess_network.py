"""The chess network: numba inference against plain numpy, its start, symmetry and gradient."""

from __future__ import annotations

from functools import partial

import chess
import numpy as np
import pytest

from engine.eval.evaluate import centipawns, squash
from engine.eval.features import MAX_PHASE, N_CHESS, chess_features
from engine.eval.learned_chess import arrays_of, batch_net_logits
from engine.eval.learned_knight import logit_to_eval
from engine.learn.chessnet import SCALE, ChessModel, feature_weights
from engine.learn.ntuple import CP_TO_LOGIT
from engine.rules.convert import state_from_fen, state_to_fen
from tests.positions import random_positions

#: Positions along seeded random chess games, restarted now and then.
chess_positions = partial(random_positions, "chess", restart=0.02)


def reference_logit(s: np.ndarray, model: ChessModel, theta: np.ndarray) -> float:
    """The network written out from learned_chess's docstring, one unit at a time."""
    linear, hidden, bias, out = model.split(theta)
    f = np.empty(N_CHESS)
    share = chess_features(s, f) / MAX_PHASE
    f_stm = f if int(s[8]) == 0 else -f
    z = share * float(linear[0] @ f_stm) + (1.0 - share) * float(linear[1] @ f_stm)
    x = np.append(f_stm * SCALE, share)
    for j in range(model.hidden):
        z += out[j] * min(max(float(hidden[j] @ x) + bias[j], 0.0), 1.0)
    return z


def trained(model: ChessModel, seed: int) -> np.ndarray:
    theta = model.start()
    return theta + np.random.default_rng(seed).normal(0.0, 0.3, model.size)


def test_network_matches_a_plain_reference_in_numba_and_numpy() -> None:
    states = chess_positions(150, seed=3)
    model = ChessModel(8)
    theta = trained(model, 4)
    want = np.array([reference_logit(s, model, theta) for s in states])
    got = batch_net_logits(states, *arrays_of(model.unpack(theta, "", {})))
    assert np.allclose(got, want, atol=1e-9)
    assert np.allclose(model.logits(theta, model.rows(states)), want, atol=1e-9)


def test_untrained_network_is_the_hand_evaluation() -> None:
    states = chess_positions(200, seed=5)
    model = ChessModel()
    z = batch_net_logits(states, *arrays_of(model.unpack(model.start(), "", {})))
    hand = np.array([squash(centipawns(s)) for s in states])
    assert np.allclose([logit_to_eval(v) for v in z], hand, atol=1e-9)


def _swap_colours(s: np.ndarray) -> np.ndarray:
    """The same position with colours, ranks and the side to move swapped."""
    return state_from_fen(chess.Board(state_to_fen(s)).mirror().fen(), "chess")


def test_network_scores_for_the_side_to_move_whichever_colour_it_is() -> None:
    states = chess_positions(120, seed=6)
    model = ChessModel(8)
    arrays = arrays_of(model.unpack(trained(model, 7), "", {}))
    swapped = np.array([_swap_colours(s) for s in states])
    assert np.allclose(batch_net_logits(states, *arrays), batch_net_logits(swapped, *arrays))


def test_gradient_matches_finite_differences() -> None:
    states = chess_positions(200, seed=8)
    model = ChessModel(4, fit_linear=True)
    rows = model.rows(states)
    theta = trained(model, 9)
    target = np.random.default_rng(10).random(len(states))
    prior = model.start()
    _, grad = model.loss_grad(theta, rows, target, prior, 1e-3)
    for i in np.random.default_rng(11).choice(model.size, 25, replace=False):
        step = np.zeros(model.size)
        step[i] = 1e-6
        up = model.loss_grad(theta + step, rows, target, prior, 1e-3)[0]
        down = model.loss_grad(theta - step, rows, target, prior, 1e-3)[0]
        assert (up - down) / 2e-6 == pytest.approx(grad[i], abs=1e-8)


def test_without_fit_linear_only_the_hidden_layer_learns() -> None:
    model = ChessModel(4)
    mask = model.mask()
    assert not mask[: model.at_hidden].any() and mask[model.at_hidden :].all()
    assert ChessModel(4, fit_linear=True).mask().all()


def test_a_hidden_layer_too_large_is_refused() -> None:
    with pytest.raises(ValueError, match=r"hidden must be 1\.\.64"):
        ChessModel(65)


def test_untrained_feature_weights_are_the_hand_weights() -> None:
    model = ChessModel()
    table = feature_weights(model.unpack(model.start(), "", {}))
    assert table["features"][0] == "pawn"
    for phase in ("middlegame", "endgame"):
        assert table["learned"][phase] == pytest.approx(table["hand"][phase], abs=0.051)


def test_a_feature_weight_is_the_networks_slope_at_a_level_position() -> None:
    model = ChessModel(8)
    w = model.unpack(trained(model, 12), "", {})
    table = feature_weights(w)
    pawn = table["features"].index("pawn")
    linear, hidden, bias, out = w.linear, w.hidden, w.bias, w.out
    tempo = N_CHESS - 1

    def logit(pawns: float) -> float:  # the network at a level position, middlegame
        f = np.zeros(N_CHESS)
        f[tempo], f[pawn] = 1.0, pawns
        x = np.append(f * SCALE, 1.0)
        return float(linear[0] @ f + out @ np.clip(hidden @ x + bias, 0.0, 1.0))

    slope = (logit(1e-6) - logit(-1e-6)) / 2e-6 / CP_TO_LOGIT
    assert table["learned"]["middlegame"][pawn] == pytest.approx(slope, abs=0.051)
