"""The learned value of a lone knight on each square, against a small hand-computed case."""

from __future__ import annotations

import numpy as np
import pytest

from engine.eval.features import N_KNIGHT
from engine.eval.learned_knight import derive
from engine.eval.learned_weights import CONTACT_SHAPE, LearnedWeights
from engine.learn.heatmap import knight_square_values
from engine.learn.ntuple import CP_TO_LOGIT, Model, tuple_squares


def test_a_lone_knight_is_valued_by_every_tuple_holding_its_square() -> None:
    # Tuple 0: a1 alone; tuple 1: (a1, b1). Configs in base 3, first square least significant.
    tuples = np.array([[0, -1], [0, 1]])
    weights = np.zeros((2, 2, 9))
    weights[0, 0, 0], weights[0, 0, 1], weights[0, 0, 2] = 1.0, 3.0, -1.0  # a1: own +2, enemy -2
    weights[0, 1, 0] = 0.5
    weights[0, 1, 1] = 1.5  # own on a1, b1 empty: +1
    weights[0, 1, 3] = 0.0  # own on b1, a1 empty: -0.5
    weights[0, 1, 6] = 2.5  # enemy on b1: +2
    weights[1, 1, 1] = 4.0  # endgame, own on a1 in tuple 1: +4
    w = LearnedWeights("knight", np.zeros((2, N_KNIGHT)), tuples, weights)
    v = knight_square_values(w).values * CP_TO_LOGIT  # back to logits
    assert v[0, 0, 0] == pytest.approx(2.0 + 1.0)
    assert v[0, 1, 0] == pytest.approx(-2.0 - 0.5)
    assert v[0, 0, 1] == pytest.approx(-0.5)
    assert v[0, 1, 1] == pytest.approx(2.0)
    assert v[1, 0, 0] == pytest.approx(4.0)
    assert not v[:, :, 2:].any()  # squares no tuple holds


def test_values_are_centipawns_of_the_hand_evaluations_squash() -> None:
    tuples = np.array([[27]])  # d4
    weights = np.zeros((2, 1, 3))
    weights[0, 0, 1] = 100 * CP_TO_LOGIT
    w = LearnedWeights("knight", np.zeros((2, N_KNIGHT)), tuples, weights)
    maps = knight_square_values(w).as_dict()
    assert maps["middlegame"]["own"][27] == 100.0
    assert len(maps["endgame"]["enemy"]) == 64


def test_single_square_tuples_give_the_piece_square_table_the_search_reads() -> None:
    model = Model(tuple_squares("pst"))
    theta = np.random.default_rng(3).normal(size=model.size)
    w = model.unpack(theta, "", {})
    _, _, pst, _, _, _ = derive(w.linear, w.tuples, w.weights, np.zeros(CONTACT_SHAPE))
    assert knight_square_values(w).values * CP_TO_LOGIT == pytest.approx(pst)
