"""The numba core agrees with the python-chess rules layer on positions from seeded random games.

Both representations play the same random games side by side; at every
position the legal move sets, the terminal status and result, the FEN and the
Zobrist key (incremental vs. recomputed) must agree.
"""

from __future__ import annotations

import random

import chess
import pytest

from engine.core.convert import (
    legal_move_array,
    move_to_uci,
    state_from_board,
    state_to_fen,
    uci_to_move,
)
from engine.core.games import make_move, result, status
from engine.core.state import (
    CHECKMATE,
    FIFTY_MOVES,
    HASH,
    INSUFFICIENT,
    NO_KNIGHTS,
    NO_MOVES,
    ONGOING,
    PLY_CAP,
    STALEMATE,
)
from engine.core.zobrist import full_hash
from engine.rules.games import CHESS_GAME, KNIGHT_GAME, Game

CHESS_TERMINATIONS = {
    chess.Termination.CHECKMATE: CHECKMATE,
    chess.Termination.STALEMATE: STALEMATE,
    chess.Termination.INSUFFICIENT_MATERIAL: INSUFFICIENT,
    chess.Termination.FIFTY_MOVES: FIFTY_MOVES,
    chess.Termination.SEVENTYFIVE_MOVES: FIFTY_MOVES,
}
KNIGHT_REASONS = {
    "no knights left": NO_KNIGHTS,
    "200-ply limit": PLY_CAP,
    "no legal move": NO_MOVES,
}
RESULTS = {"1-0": 1, "0-1": -1, "1/2-1/2": 0}


def _positions_checked(game: Game, seed: int, games: int, capture_bias: float) -> int:
    rng = random.Random(seed)
    checked = 0
    for _ in range(games):
        board = game.board()
        state = state_from_board(board)
        while True:
            ours = {move_to_uci(int(m)) for m in legal_move_array(state)}
            if not (game is KNIGHT_GAME and board.is_variant_end()):
                # (python-chess lists no moves once a knight-chess game is over)
                assert ours == {m.uci() for m in board.legal_moves}, board.fen()
            assert state_to_fen(state) == board.fen()
            assert state[HASH] == full_hash(state)
            code = status(state, len(ours))
            outcome = board.outcome(claim_draw=True)
            checked += 1
            if (
                outcome is not None
                and outcome.termination == chess.Termination.THREEFOLD_REPETITION
            ):
                break  # repetition needs the game's history; the core sees one position
            if game is KNIGHT_GAME:
                expected = KNIGHT_REASONS.get(board.end_reason() or "", ONGOING)
            elif outcome is None or (
                # python-chess lets a player at 99 claim on announcing a non-zeroing move;
                # the core ends the game once the clock reaches 100, one ply later.
                outcome.termination == chess.Termination.FIFTY_MOVES and board.halfmove_clock < 100
            ):
                expected = ONGOING
            else:
                expected = CHESS_TERMINATIONS[outcome.termination]
            assert code == expected, board.fen()
            if code != ONGOING:
                assert outcome is not None
                assert outcome.termination != chess.Termination.FIFTY_MOVES or code == FIFTY_MOVES
                assert result(state, code) == RESULTS[outcome.result()], board.fen()
                break
            legal = list(board.legal_moves)
            captures = [m for m in legal if board.is_capture(m) or m.promotion]
            move = rng.choice(captures if captures and rng.random() < capture_bias else legal)
            make_move(state, uci_to_move(state, move.uci()))
            board.push(move)
    return checked


@pytest.mark.parametrize("game", [CHESS_GAME, KNIGHT_GAME], ids=lambda g: g.name)
def test_core_and_rules_agree_on_random_game_positions(game: Game) -> None:
    # A bias towards captures reaches endgames, promotions and mates more often.
    checked = _positions_checked(game, seed=7, games=4, capture_bias=0.0)
    checked += _positions_checked(game, seed=11, games=6, capture_bias=0.7)
    assert checked >= 500


def test_core_agrees_on_tricky_chess_positions() -> None:
    """Pins, en passant discovering a rank check, castling through attack, promotions."""
    fens = [
        "8/8/8/KPp4r/8/8/8/7k w - c6 0 2",  # en passant would expose the king on the rank
        "8/8/8/8/k2Pp2Q/8/8/4K3 b - d3 0 1",  # en passant with both pawns on the king's rank
        "r3k2r/8/8/8/8/8/8/R3K1rR w KQkq - 0 1",  # castling through and out of attack
        "4k3/1P6/8/8/8/8/6p1/4K2R w K - 0 1",  # promotions on both sides
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "4k3/8/8/8/8/8/3b4/R3K2R w KQ - 0 1",  # in check from a bishop: no castling
        "K7/8/8/3Q4/4q3/8/8/7k w - - 0 1",  # queen pinned on the diagonal
    ]
    for fen in fens:
        board = chess.Board(fen)
        state = state_from_board(board)
        assert {move_to_uci(int(m)) for m in legal_move_array(state)} == {
            m.uci() for m in board.legal_moves
        }, fen
