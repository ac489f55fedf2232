"""``has_legal_move``, the quiescence search's test before it stands pat: it must say
exactly what ``legal_moves(...) > 0`` says — a wrong "no move" reads a live position as
a stalemate (a draw), a wrong "a move" reads a stalemate as the standing score."""

from __future__ import annotations

import random

import chess
import numpy as np
import pytest

from engine.core.games import has_legal_move, legal_moves
from engine.core.state import MAX_MOVES
from engine.eval.evaluate import evaluate
from engine.rules.convert import state_from_board, state_from_fen
from engine.search.parts.alphabeta import INF, SearchContext, qsearch
from tests.positions import random_positions

BUF = np.zeros(MAX_MOVES, dtype=np.int32)  # has_legal_move's scratch
PIECES = [chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN]


def sparse_boards(count: int, seed: int) -> list[chess.Board]:
    """Valid positions of two kings and one to five other pieces placed at random: few
    pieces give many checks, pins, double checks, stalemates and mates."""
    rng = random.Random(seed)
    boards: list[chess.Board] = []
    while len(boards) < count:
        board = chess.Board(None)
        squares = rng.sample(chess.SQUARES, 7)
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        for square in squares[2 : 2 + rng.randint(1, 5)]:
            piece = chess.Piece(rng.choice(PIECES), rng.random() < 0.5)
            if piece.piece_type == chess.PAWN and chess.square_rank(square) in (0, 7):
                continue
            board.set_piece_at(square, piece)
        board.turn = rng.random() < 0.5
        if board.is_valid():
            boards.append(board)
    return boards


def test_it_agrees_with_python_chess_on_sparse_positions() -> None:
    none = checks = 0
    for board in sparse_boards(20000, seed=5):
        expected = any(board.legal_moves)
        assert has_legal_move(state_from_board(board), BUF) == expected, board.fen()
        none += not expected
        checks += board.is_check()
    assert none > 50 and checks > 3000  # stalemates and mates were met, checks often


def test_it_agrees_with_the_move_count_along_random_games_to_their_end() -> None:
    rng = random.Random(9)
    ends = 0
    for _ in range(40):
        board = chess.Board()
        while True:
            expected = any(board.legal_moves)
            assert has_legal_move(state_from_board(board), BUF) == expected, board.fen()
            if board.is_game_over():
                ends += not any(board.legal_moves)
                break
            board.push(rng.choice(list(board.legal_moves)))
    assert ends > 0  # at least one game ended in mate or stalemate


@pytest.mark.parametrize(
    ("fen", "expected"),
    [
        # en passant is the only move, and legal
        ("4b3/8/4p3/K2pP3/8/3b4/8/1r5k w - d6 0 1", True),
        ("K7/2q5/4p3/3pP3/8/8/8/7k w - d6 0 1", True),
        # ... and illegal: taking it opens the fifth rank to the rook, so it is stalemate
        ("4b3/8/4p3/K2pP2r/8/3b4/8/1r5k w - d6 0 1", False),
        ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", False),  # stalemate
        ("6rk/5Npp/8/8/8/8/8/6RK b - - 0 1", False),  # smothered mate
    ],
)
def test_en_passant_stalemate_and_mate(fen: str, expected: bool) -> None:
    board = chess.Board(fen)
    assert any(board.legal_moves) == expected  # the case is what it says
    assert has_legal_move(state_from_fen(fen), BUF) == expected


def test_knight_chess_agrees_with_the_move_count() -> None:
    buf = np.zeros(MAX_MOVES, dtype=np.int32)
    for s in random_positions("knight", 500, seed=4):
        assert has_legal_move(s, BUF) == (legal_moves(s, buf) > 0)
    assert has_legal_move(state_from_fen("8/8/8/8/8/8/8/N6n w - - 0 1", "knight"), BUF)
    assert not has_legal_move(state_from_fen("8/8/8/8/8/8/8/n7 w - - 0 1", "knight"), BUF)


def test_the_quiescence_search_standing_pat_still_reads_a_stalemate_as_a_draw() -> None:
    # Above beta the quiescence search stands pat without listing the moves; a side with
    # none is stalemated, not standing: 0, whatever its evaluation says.
    ctx = SearchContext(tt_bits=8)
    stalemate = state_from_fen("4b3/8/4p3/K2pP2r/8/3b4/8/1r5k w - d6 0 1")
    live = state_from_fen("4b3/8/4p3/K2pP3/8/3b4/8/1r5k w - d6 0 1")
    for s, expected in ((stalemate, 0.0), (live, evaluate(live))):
        ctx.states[0] = s
        assert qsearch(ctx.arrays, 0, -INF, -2.0, 0, 0) == expected
