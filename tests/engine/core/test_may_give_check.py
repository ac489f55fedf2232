"""``may_give_check``, the quiescence search's filter before make-and-test: it must never
call a checking move "no check" (the search would miss that check), and it must say "no
check" for most moves that give none (else it saves nothing)."""

from __future__ import annotations

import random

import chess

from engine.core.games import may_give_check
from engine.rules.convert import legal_move_array, move_to_uci, state_from_board, state_from_fen


def checks_and_answers(board: chess.Board) -> list[tuple[bool, bool]]:
    """(python-chess: gives check, core: may give check) for every legal move."""
    state = state_from_board(board)
    pairs = []
    for m in legal_move_array(state):
        move = chess.Move.from_uci(move_to_uci(int(m)))
        pairs.append((board.gives_check(move), bool(may_give_check(state, int(m)))))
    return pairs


def test_no_checking_move_is_ever_filtered_out_in_random_games() -> None:
    rng = random.Random(7)
    checks = quiet_without_check = filtered = 0
    for _ in range(60):
        board = chess.Board()
        while not board.is_game_over() and board.ply() < 160:
            for gives, may in checks_and_answers(board):
                assert may or not gives, board.fen()
                checks += gives
                quiet_without_check += not gives
                filtered += not may
            board.push(rng.choice(list(board.legal_moves)))
    assert checks > 500  # the games reached plenty of checks of every kind
    assert filtered > 0.8 * quiet_without_check


def test_discovered_castling_en_passant_and_promotion_checks_are_let_through() -> None:
    cases = {
        # a bishop in front of its rook on the e-file: every bishop move discovers check
        "4k3/8/8/8/4B3/8/8/4R2K w - - 0 1": {"e4d5", "e4a8", "e4h7", "e4b1", "e4g2"},
        # castling: the rook lands on f1, on the king's file
        "5k2/8/8/8/8/8/8/4K2R w K - 0 1": {"e1g1", "h1f1", "h1h8"},
        # en passant (and the push) uncover the a1-h8 diagonal to the queen
        "7k/8/8/3pP3/8/8/8/Q3K3 w - d6 0 1": {"e5d6", "e5e6"},
        # an under-promotion to a knight checks
        "8/4P3/3k4/8/8/8/8/4K3 w - - 0 1": {"e7e8n"},
    }
    for fen, checking in cases.items():
        board = chess.Board(fen)
        state = state_from_board(board)
        for m in legal_move_array(state):
            uci = move_to_uci(int(m))
            gives = board.gives_check(chess.Move.from_uci(uci))
            if uci in checking:
                assert gives, (fen, uci)
            if gives:
                assert may_give_check(state, int(m)), (fen, uci)


def test_quiet_moves_far_from_the_king_are_filtered_and_knight_chess_has_no_check() -> None:
    start = state_from_board(chess.Board())
    assert not any(may_give_check(start, int(m)) for m in legal_move_array(start))
    knight = state_from_fen(None, "knight")
    assert not any(may_give_check(knight, int(m)) for m in legal_move_array(knight))
