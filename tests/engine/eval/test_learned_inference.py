"""The learned evaluation's numba inference against plain numpy, and its symmetries."""

from __future__ import annotations

from functools import partial

import chess
import numpy as np
import pytest

from engine.core.state import (
    EVAL,
    KNIGHT,
    LEARNED_EVAL,
    PLY,
    TURN,
    WHITE_BB,
)
from engine.core.tables import KNIGHT_ATTACKS
from engine.eval.evaluate import centipawns, evaluate, squash
from engine.eval.features import MAX_PHASE, N_KNIGHT, knight_features
from engine.eval.learned_knight import (
    batch_fast_logits,
    batch_logits,
    derive,
    logit_to_eval,
)
from engine.learn.ntuple import TUPLE_SETS, Model, rows_of, tuple_squares
from engine.rules.convert import state_from_fen, state_to_fen
from tests.positions import random_positions

START = "nnnnnnnn/nnnnnnnn/8/8/8/8/NNNNNNNN/NNNNNNNN w - - 0 1"
#: Positions along seeded random knight-chess games, restarted now and then.
knight_positions = partial(random_positions, "knight", start=START, restart=0.01)


def reference_logit(s: np.ndarray, linear: np.ndarray, squares: np.ndarray,
                    weights: np.ndarray, contact: np.ndarray) -> float:  # fmt: skip
    """The network written out in plain Python/numpy from the format's description."""
    f = np.empty(N_KNIGHT)
    share = knight_features(s, f) / MAX_PHASE
    us = int(s[TURN])
    f_stm = f * (1.0 if us == 0 else -1.0)
    own = int(s[WHITE_BB + us]) & int(s[KNIGHT])
    enemy = int(s[WHITE_BB + 1 - us]) & int(s[KNIGHT])
    z = np.zeros(2)
    for p in range(2):
        z[p] = float(linear[p] @ f_stm)
        for t, row in enumerate(squares):
            config = 0
            for k, q in enumerate(int(q) for q in row if q >= 0):
                sq = q ^ 56 if us == 1 else q
                digit = 1 if own >> sq & 1 else 2 if enemy >> sq & 1 else 0
                config += digit * 3**k
            z[p] += weights[p, t, config]
        for side, (mine, theirs) in enumerate(((own, enemy), (enemy, own))):
            for sq in range(64):
                if mine >> sq & 1:
                    jumps = int(KNIGHT_ATTACKS[sq])
                    attackers = min(bin(jumps & theirs).count("1"), 3)
                    defenders = min(bin(jumps & mine).count("1"), 3)
                    z[p] += contact[p, side, attackers * 4 + defenders]
    return float(z[0] * share + z[1] * (1.0 - share))


@pytest.mark.parametrize("name", sorted(TUPLE_SETS))
def test_network_matches_a_plain_numpy_reference_on_random_positions(name: str) -> None:
    states = knight_positions(300, seed=7)
    squares = tuple_squares(name)
    model = Model(squares)
    theta = np.random.default_rng(3).normal(0.0, 0.5, model.size)
    w = model.unpack(theta, "", {})
    want = np.array([reference_logit(s, w.linear, w.tuples, w.weights, w.contact)
                     for s in states])  # fmt: skip
    got = batch_logits(states, w.linear, w.tuples, w.weights, w.contact)
    assert np.allclose(got, want, atol=1e-9)
    fast = batch_fast_logits(states, *derive(w.linear, w.tuples, w.weights, w.contact))
    assert np.allclose(fast, want, atol=1e-9)
    assert np.allclose(model.logits(theta, rows_of(states, squares)), want, atol=1e-9)


def test_untrained_network_is_the_hand_evaluation() -> None:
    states = knight_positions(200, seed=11)
    model = Model(tuple_squares("pst"))
    theta = model.start()
    z = model.logits(theta, rows_of(states, model.squares))
    hand = np.array([squash(centipawns(s)) for s in states])
    assert np.allclose([logit_to_eval(v) for v in z], hand, atol=1e-9)


def _mirror_files(s: np.ndarray) -> np.ndarray:
    board = chess.Board(state_to_fen(s))
    return state_from_fen(board.transform(chess.flip_horizontal).fen(), "knight")


def _swap_colours(s: np.ndarray) -> np.ndarray:
    """The same position seen from the other side: ranks flipped, colours and turn swapped,
    at the same ply (the phase counts plies)."""
    out = state_from_fen(chess.Board(state_to_fen(s)).mirror().fen(), "knight")
    out[PLY] = s[PLY]
    return out


@pytest.mark.parametrize("name", sorted(TUPLE_SETS))
def test_tied_weights_give_a_position_and_its_mirror_image_the_same_value(name: str) -> None:
    states = knight_positions(120, seed=5)
    model = Model(tuple_squares(name))
    w = model.unpack(np.random.default_rng(9).normal(0.0, 0.5, model.size), "", {})
    mirrored = np.array([_mirror_files(s) for s in states])
    a = batch_logits(states, w.linear, w.tuples, w.weights, w.contact)
    b = batch_logits(mirrored, w.linear, w.tuples, w.weights, w.contact)
    assert np.allclose(a, b, atol=1e-9)


def test_network_scores_for_the_side_to_move_whichever_colour_it_is() -> None:
    states = knight_positions(120, seed=6)
    model = Model(tuple_squares("pst"))
    w = model.unpack(np.random.default_rng(2).normal(0.0, 0.5, model.size), "", {})
    swapped = np.array([_swap_colours(s) for s in states])
    a = batch_logits(states, w.linear, w.tuples, w.weights, w.contact)
    b = batch_logits(swapped, w.linear, w.tuples, w.weights, w.contact)
    assert np.allclose(a, b, atol=1e-9)


def test_eval_slot_hand_runs_the_hand_evaluation_exactly() -> None:
    for s in knight_positions(200, seed=12):
        assert s[EVAL] == 0
        assert evaluate(s) == squash(centipawns(s))


def test_eval_slot_learned_runs_the_chess_network_in_chess() -> None:
    from engine.eval import learned_chess

    italian = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
    s = state_from_fen(italian, "chess")
    s[EVAL] = LEARNED_EVAL
    want = logit_to_eval(
        learned_chess.net_logit(s, learned_chess.LINEAR, learned_chess.SCALE,
                                learned_chess.HIDDEN_T, learned_chess.BIAS, learned_chess.OUT)
    )  # fmt: skip
    assert evaluate(s) == want


def test_a_zero_contact_table_is_skipped_with_the_same_values() -> None:
    states = knight_positions(200, seed=13)
    model = Model(tuple_squares("pst"))
    theta = np.random.default_rng(14).normal(0.0, 0.5, model.size)
    w = model.unpack(theta, "", {})
    w = model.unpack(model.pack(type(w)(w.game, w.linear, w.tuples, w.weights)), "", {})
    arrays = derive(w.linear, w.tuples, w.weights, w.contact)
    assert arrays[-1].shape[0] == 0  # nothing to count
    want = batch_logits(states, w.linear, w.tuples, w.weights, w.contact)
    assert np.allclose(batch_fast_logits(states, *arrays), want, atol=1e-9)
