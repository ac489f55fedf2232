"""Static evaluation: side-to-move point of view, squashing into [-1, 1]."""

from __future__ import annotations

import chess
import pytest

from engine.core.convert import state_from_board, state_from_fen
from engine.search.evaluation import centipawns, evaluate, squash, unsquash


def test_squash_maps_centipawns_into_the_open_interval() -> None:
    assert squash(0.0) == 0.0
    assert squash(400.0) == pytest.approx(2 / (1 + 10**-1) - 1)
    assert -1 < squash(-5000.0) < -0.99 and 0.99 < squash(5000.0) < 1
    assert unsquash(squash(123.0)) == pytest.approx(123.0)


@pytest.mark.parametrize(
    "fen",
    [
        "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
        "8/6k1/8/3Q4/8/8/2K5/8 w - - 0 1",
    ],
)
def test_chess_eval_is_from_the_side_to_move_and_colour_symmetric(fen: str) -> None:
    board = chess.Board(fen)
    white_view = centipawns(state_from_board(board))
    board.turn = not board.turn
    assert centipawns(state_from_board(board)) == pytest.approx(-white_view)
    mirrored = chess.Board(fen).mirror()
    assert centipawns(state_from_board(mirrored)) == pytest.approx(white_view)


def test_material_dominates() -> None:
    queen_up = state_from_fen("8/6k1/8/3Q4/8/8/2K5/8 w - - 0 1")
    assert evaluate(queen_up) > 0.95


def test_knight_eval_counts_knights_first() -> None:
    more = state_from_fen("8/8/8/3n4/8/4N3/8/N7 w - - 0 1", "knight")
    assert centipawns(more) > 80
    start = state_from_fen(None, "knight")
    assert centipawns(start) == 0
