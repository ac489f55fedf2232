"""The NNUE's piece-square maps, probed from the network: against networks whose answer
is known (a piece-square term alone) and against the network evaluated on written FENs."""

from __future__ import annotations

import numpy as np
import pytest

from engine.core.state import TURN
from engine.eval.nnue import kernel_arrays, logit_with, refresh_with
from engine.eval.nnue_weights import INPUTS, NNUEWeights
from engine.learn.nnue_heatmap import PIECES, REFERENCE_FEN, piece_square_maps
from engine.learn.ntuple import CP_TO_LOGIT
from engine.rules.convert import state_from_fen
from tests.networks import large_network

KNIGHT = 1
QP = 512


def psqt_only(psqt: np.ndarray, hidden: int = 4) -> NNUEWeights:
    """A network whose hidden layer reads nothing: its value is its piece-square term."""
    return NNUEWeights(
        ft_weight=np.zeros((INPUTS, hidden), dtype=np.int16),
        ft_bias=np.zeros(hidden, dtype=np.int16),
        psqt=psqt.astype(np.int16),
        out_weight=np.linspace(-1, 1, 2 * hidden).astype(np.float32),
        out_bias=0.0,
        qp=QP,
    )


def cp_of(w: NNUEWeights, fen: str) -> float:
    """The network's value of ``fen`` for the side to move, straight from the kernels."""
    ft, bias, out, out_bias, qa, qp = kernel_arrays(w)
    s = state_from_fen(fen, "chess")
    acc = np.zeros((2, ft.shape[1]), dtype=np.int32)
    refresh_with(s, acc, ft, bias)
    return float(logit_with(acc, int(s[TURN]), out, out_bias, qa, qp)) / CP_TO_LOGIT


def test_a_piece_square_term_alone_is_exactly_the_map() -> None:
    """Own knight inputs worth 4 × the square's index, seen from White; every other input
    0: the own knight's map is that, the enemy knight's its mirror negated, the rest 0."""
    psqt = np.zeros(INPUTS)
    psqt[KNIGHT * 64 : KNIGHT * 64 + 64] = 4 * np.arange(64)
    maps = piece_square_maps(psqt_only(psqt))
    unit = 1 / (2 * QP) / CP_TO_LOGIT  # one psqt point, in centipawns
    for sq in range(64):
        if sq in (4, 60):  # e1, e8: the kings
            assert maps["knight"]["own"][sq] is None and maps["knight"]["enemy"][sq] is None
            continue
        assert maps["knight"]["own"][sq] == pytest.approx(4 * sq * unit, rel=1e-12, abs=1e-12)
        assert maps["knight"]["enemy"][sq] == pytest.approx(
            -4 * (sq ^ 56) * unit, rel=1e-12, abs=1e-12
        )
    for piece in ("bishop", "rook", "queen"):
        assert {v for v in maps[piece]["own"] if v is not None} == {0.0}


def test_each_probe_is_the_networks_value_with_the_piece_minus_the_reference() -> None:
    w = large_network(hidden=16, seed=5)
    maps = piece_square_maps(w)
    base = cp_of(w, REFERENCE_FEN)
    assert set(maps) == set(PIECES) and all(len(m["own"]) == 64 for m in maps.values())
    own_queen_d4 = cp_of(w, "4k3/8/8/8/3Q4/8/8/4K3 w - - 0 1") - base
    enemy_pawn_c6 = cp_of(w, "4k3/8/2p5/8/8/8/8/4K3 w - - 0 1") - base
    assert maps["queen"]["own"][27] == pytest.approx(own_queen_d4, abs=1e-9)
    assert maps["pawn"]["enemy"][42] == pytest.approx(enemy_pawn_c6, abs=1e-9)
    assert maps["queen"]["own"][27] != pytest.approx(maps["queen"]["own"][28])


def test_the_king_map_moves_the_king_and_skips_the_squares_next_to_the_other() -> None:
    w = large_network(hidden=8, seed=9)
    maps = piece_square_maps(w)
    base = cp_of(w, REFERENCE_FEN)
    own, enemy = maps["king"]["own"], maps["king"]["enemy"]
    assert own[4] == 0.0 and enemy[60] == 0.0  # the reference itself
    assert own[6] == pytest.approx(cp_of(w, "4k3/8/8/8/8/8/8/6K1 w - - 0 1") - base, abs=1e-9)
    assert enemy[35] == pytest.approx(cp_of(w, "8/8/8/3k4/8/8/8/4K3 w - - 0 1") - base, abs=1e-9)
    for sq in (51, 52, 53, 59, 60, 61):  # d7 e7 f7 d8 e8 f8: next to or on the enemy king
        assert own[sq] is None
    assert enemy[4] is None and enemy[12] is None and own[44] is not None


def test_pawns_stand_only_on_ranks_two_to_seven() -> None:
    maps = piece_square_maps(large_network(hidden=4, seed=2))
    for who in ("own", "enemy"):
        values = maps["pawn"][who]
        assert all(values[sq] is None for sq in [*range(8), *range(56, 64)])
        assert all(values[sq] is not None for sq in range(8, 56))
