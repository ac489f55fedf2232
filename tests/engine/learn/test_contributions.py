"""What the NNUE adds over the hand evaluation, piece by piece: each piece's value under
each evaluation is the position's value with it minus without it, for the side to move."""

from __future__ import annotations

import numpy as np
import pytest

from engine.errors import InvalidFenError
from engine.eval.evaluate import centipawns, squash
from engine.eval.nnue_weights import INPUTS
from engine.learn.contributions import what_it_adds
from engine.learn.ntuple import CP_TO_LOGIT
from engine.rules.convert import state_from_fen
from tests.engine.learn.test_nnue_heatmap import QP, cp_of, psqt_only
from tests.networks import large_network

ITALIAN = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
ITALIAN_NO_F3 = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNBQK2R w KQkq - 4 4"
TYPES = "pnbrqk"


def psqt_value(psqt: np.ndarray, letter: str, sq: int, us: int) -> float:
    """A piece's piece-square term for side ``us``, in centipawns: its input seen by its
    own side minus seen by the other, halved by 2 qp as the network does."""
    kind = TYPES.index(letter.lower())
    colour = 0 if letter.isupper() else 1
    own_view = psqt[kind * 64 + (sq if colour == 0 else sq ^ 56)]
    other_view = psqt[(6 + kind) * 64 + (sq if colour == 1 else sq ^ 56)]
    sign = 1 if colour == us else -1
    return sign * (own_view - other_view) / (2 * QP) / CP_TO_LOGIT


@pytest.mark.parametrize("fen", [ITALIAN, ITALIAN.replace(" w ", " b ")])
def test_with_a_piece_square_term_alone_each_piece_adds_exactly_its_term(fen: str) -> None:
    psqt = np.random.default_rng(4).integers(-900, 900, size=INPUTS)
    psqt[5 * 64 : 6 * 64] = psqt[11 * 64 : 12 * 64] = 0  # kings: not probed
    found = what_it_adds(fen, psqt_only(psqt))
    us = 0 if found.turn == "white" else 1
    assert len(found.pieces) == 32
    for p in found.pieces:
        sq = (ord(p.square[0]) - 97) + 8 * (int(p.square[1]) - 1)
        if p.piece in "Kk":
            assert p.hand is None and p.nnue is None
            continue
        assert p.nnue == pytest.approx(psqt_value(psqt, p.piece, sq, us), rel=1e-9, abs=1e-9)
    # Every piece's term adds up to the whole value (kings and bias are 0 here).
    total = sum(p.nnue for p in found.pieces if p.nnue is not None)
    assert found.nnue_cp == pytest.approx(total, abs=1e-9)


def test_the_hand_contribution_is_the_hand_value_with_minus_without_the_piece() -> None:
    found = what_it_adds(ITALIAN, None)
    with_all = centipawns(state_from_fen(ITALIAN, "chess"))
    without = centipawns(state_from_fen(ITALIAN_NO_F3, "chess"))
    knight = next(p for p in found.pieces if p.square == "f3")
    assert knight.piece == "N" and knight.hand == pytest.approx(with_all - without)
    assert found.hand_cp == pytest.approx(with_all)
    assert found.hand_eval == pytest.approx(squash(with_all))
    assert knight.nnue is None and found.nnue_cp is None and found.difference_cp is None


def test_the_position_values_are_both_evaluations_for_the_side_to_move() -> None:
    w = large_network(hidden=8, seed=6)
    black = ITALIAN.replace(" w ", " b ")
    found = what_it_adds(black, w)
    assert found.turn == "black" and [p.square for p in found.pieces][:2] == ["a8", "c8"]
    assert found.nnue_cp == pytest.approx(cp_of(w, black))
    assert found.hand_cp == pytest.approx(centipawns(state_from_fen(black, "chess")))
    assert found.difference_cp == pytest.approx(found.nnue_cp - found.hand_cp)


def test_a_bad_fen_is_refused() -> None:
    with pytest.raises(InvalidFenError):
        what_it_adds("8/8/8/8/8/8/8/8 w - - 0 1", None)
