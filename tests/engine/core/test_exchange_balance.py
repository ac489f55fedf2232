"""``exchange_balance``, the one-exchange estimate the ``mcts`` quiescence search prunes by
(``qprune``): checked against the same rule computed with python-chess on the position
after the move, in every legal move of seeded random games, and on set positions."""

from __future__ import annotations

import random

import chess

from engine.core.games import exchange_balance
from engine.core.state import FLAG_EP
from engine.rules.convert import legal_move_array, move_to_uci, state_from_board, state_from_fen

WORTH = {
    chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9,
    chess.KING: 100,
}  # fmt: skip


def reference(board: chess.Board, move: chess.Move) -> int:
    """The rule, read off the position after ``move`` (python-chess's attackers)."""
    us = board.turn
    mover = board.piece_type_at(move.from_square)
    assert mover is not None
    if board.is_en_passant(move):
        gain = 1
    else:
        victim = board.piece_type_at(move.to_square)
        gain = WORTH[victim] if victim else 0
    if mover == chess.KING:
        return gain
    after = board.copy(stack=False)
    after.push(move)
    attackers = after.attackers(not us, move.to_square)
    if not attackers:
        return gain
    if not after.attackers(us, move.to_square):
        return gain - WORTH[mover]
    cheapest = min(WORTH[after.piece_type_at(sq)] for sq in attackers)  # type: ignore[index]
    return gain - max(0, WORTH[mover] - cheapest)


def balance(fen: str, uci: str) -> int:
    state = state_from_fen(fen, "chess")
    for m in legal_move_array(state):
        if move_to_uci(int(m)) == uci:
            return int(exchange_balance(state, int(m)))
    raise AssertionError(f"{uci} is not legal in {fen}")


def test_the_estimate_agrees_with_python_chess_in_random_games() -> None:
    rng = random.Random(5)
    compared = negative = 0
    for _ in range(40):
        board = chess.Board()
        while not board.is_game_over() and board.ply() < 160:
            state = state_from_board(board)
            for m in legal_move_array(state):
                move = chess.Move.from_uci(move_to_uci(int(m)))
                got = int(exchange_balance(state, int(m)))
                if move.promotion:
                    assert got == 0
                    continue
                if int(m) & FLAG_EP:
                    continue  # the taken pawn leaves its square: a line through it differs
                assert got == reference(board, move), (board.fen(), move.uci())
                compared += 1
                negative += got < 0
            board.push(rng.choice(list(board.legal_moves)))
    assert compared > 50_000 and negative > 5_000


def test_set_exchanges() -> None:
    # A queen taking a pawn a pawn defends loses eight; a pawn taking a knight wins three.
    fen = "4k3/8/2p5/3p4/4P3/8/8/3QK3 w - - 0 1"
    assert balance(fen, "d1d5") == 1 - (9 - 1)
    assert balance(fen, "e4d5") == 1
    # A knight to a square a pawn covers and nothing defends is lost; to a safe one, not.
    knight = "4k3/8/2p5/8/3N4/8/8/4K3 w - - 0 1"
    assert balance(knight, "d4b5") == -3
    assert balance(knight, "d4f5") == 0
    # Defended by a pawn, the knight risks its worth above the attacking pawn's.
    assert balance("4k3/8/2p5/8/2PN4/8/8/4K3 w - - 0 1", "d4b5") == -2
    # A rook stepping up the file to the enemy rook, undefended.
    assert balance("3rk3/8/8/8/3R4/8/8/4K3 w - - 0 1", "d4d5") == -5
    # Promotions are not judged; a king's capture is its gain.
    assert balance("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8q") == 0
    assert balance("4k3/8/8/8/8/8/3p4/4K3 w - - 0 1", "e1d2") == 1


def test_knight_chess_never_reads_a_loss() -> None:
    state = state_from_fen("startpos", "knight")
    assert all(exchange_balance(state, int(m)) == 0 for m in legal_move_array(state))
