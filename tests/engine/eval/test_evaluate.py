"""Static evaluation: side-to-move point of view, colour symmetry, squashing into [-1, 1]."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from engine.core.state import PLY
from engine.eval.evaluate import (
    CHESS_EG,
    CHESS_MG,
    FEATURE_SCRATCH,
    centipawns,
    evaluate,
    evaluate_into,
    squash,
    unsquash,
)
from engine.eval.features import C_TEMPO, N_CHESS, chess_features
from engine.rules.convert import state_from_board, state_from_fen
from tests.positions import random_positions

CHESS_FENS = [
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "8/6k1/8/3Q4/8/8/2K5/8 w - - 0 1",
    "r4rk1/pp3ppp/2n1b3/3pP3/3P4/2PB1N2/P4PPP/R4RK1 b - - 0 15",
    "8/2p5/1p1k4/p2P4/P1P5/1P6/6K1/8 w - - 0 40",
    "2kr3r/ppq2ppp/2n1bn2/2bpp3/4P3/2NP1N2/PPPBBPPP/R2Q1RK1 w - - 0 10",
]
KNIGHT_FENS = [
    "nnnnnnnn/nnnnnnnn/8/8/8/8/NNNNNNNN/NNNNNNNN w - - 0 1",
    "nn1nnnnn/nnnn1nnn/2n5/4n3/3N4/5N2/NNN1NNNN/NNNNN1NN b - - 4 3",
    "8/8/8/3n4/8/4N3/8/N7 w - - 0 1",
    "n7/2n5/8/3N4/1n6/2N5/8/7N w - - 0 90",
]


def test_squash_maps_centipawns_into_the_open_interval() -> None:
    assert squash(0.0) == 0.0
    assert squash(400.0) == pytest.approx(2 / (1 + 10**-1) - 1)
    assert -1 < squash(-5000.0) < -0.99 and 0.99 < squash(5000.0) < 1
    assert unsquash(squash(123.0)) == pytest.approx(123.0)


@pytest.mark.parametrize("fen", CHESS_FENS)
def test_chess_mirror_scores_the_same_for_the_side_to_move(fen: str) -> None:
    board = chess.Board(fen)
    assert centipawns(state_from_board(board.mirror())) == pytest.approx(
        centipawns(state_from_board(board))
    )


@pytest.mark.parametrize("fen", KNIGHT_FENS)
def test_knight_mirror_scores_the_same_for_the_side_to_move(fen: str) -> None:
    state = state_from_fen(fen, "knight")
    board = chess.Board(fen).mirror()
    mirrored = state_from_fen(board.fen(), "knight")
    mirrored[PLY] = state[PLY]  # the phase follows the ply count, which the FEN flip shifts
    assert centipawns(mirrored) == pytest.approx(centipawns(state))


@pytest.mark.parametrize("fen", CHESS_FENS)
def test_chess_eval_is_from_the_side_to_move(fen: str) -> None:
    """Handing the move to the other side negates everything but the tempo terms."""
    board = chess.Board(fen)
    board.ep_square = None
    mover = centipawns(state_from_board(board))
    board.turn = not board.turn
    waiter = centipawns(state_from_board(board))
    # Only the tempo (+t for whoever moves) does not flip: mover - t == -(waiter - t).
    phase = chess_features(state_from_board(board), np.empty(N_CHESS))
    tempo = (CHESS_MG[C_TEMPO] * phase + CHESS_EG[C_TEMPO] * (24 - phase)) / 24
    assert mover + waiter == pytest.approx(2 * tempo)


def test_material_dominates() -> None:
    queen_up = state_from_fen("8/6k1/8/3Q4/8/8/2K5/8 w - - 0 1")
    assert evaluate(queen_up) > 0.95
    assert evaluate(state_from_fen("8/6k1/8/3q4/8/8/2K5/8 w - - 0 1")) < -0.95


def test_start_positions_are_about_level() -> None:
    assert abs(centipawns(state_from_fen("startpos"))) < 40
    assert abs(centipawns(state_from_fen(None, "knight"))) < 40


def test_knight_eval_counts_knights_first() -> None:
    more = state_from_fen("8/8/8/3n4/8/4N3/8/N7 w - - 0 1", "knight")
    assert centipawns(more) > 80


@pytest.mark.parametrize("game", ["chess", "knight"])
def test_evaluate_into_a_kept_scratch_equals_evaluate(game: str) -> None:
    # The searches evaluate into one feature vector they keep (SearchContext.features),
    # the other callers into a fresh one: the same score to the bit, for either game,
    # whatever an earlier call left in the scratch.
    scratch = np.full(FEATURE_SCRATCH, np.nan)
    for s in random_positions(game, 300, seed=2):
        assert evaluate_into(s, scratch) == evaluate(s)
