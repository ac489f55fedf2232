"""Slider attacks and ``piece_at`` against references written the plain way.

Both are written without branches in the core (the rays end at a sentinel square,
``piece_at`` sums bits): the edge cases are a blocker on the sentinel squares themselves
(h8, a1) and rays that leave the board at once, so every square is tried with random
occupancies that include them.
"""

from __future__ import annotations

import random

import chess
import numpy as np

from engine.core.chess_core import bishop_attacks, piece_at, rook_attacks
from engine.rules.convert import state_from_fen

ROOK_STEPS = ((0, 1), (0, -1), (1, 0), (-1, 0))
BISHOP_STEPS = ((1, 1), (1, -1), (-1, 1), (-1, -1))


def walk(sq: int, occ: int, steps: tuple[tuple[int, int], ...]) -> int:
    """The squares a slider on ``sq`` reaches, stepping until the board's edge or a piece."""
    seen = 0
    for df, dr in steps:
        f, r = sq % 8 + df, sq // 8 + dr
        while 0 <= f < 8 and 0 <= r < 8:
            seen |= 1 << (r * 8 + f)
            if occ >> (r * 8 + f) & 1:
                break
            f, r = f + df, r + dr
    return seen


def test_rook_and_bishop_attacks_match_a_square_by_square_walk() -> None:
    rng = random.Random(5)
    corners = (1 << 63) | 1
    for sq in range(64):
        for density in (0.0, 0.15, 0.4, 0.8):
            for _ in range(8):
                occ = sum(1 << i for i in range(64) if rng.random() < density)
                for extra in (0, corners):
                    o = np.uint64((occ | extra) & ~(1 << sq))
                    assert int(rook_attacks(sq, o)) == walk(sq, int(o), ROOK_STEPS)
                    assert int(bishop_attacks(sq, o)) == walk(sq, int(o), BISHOP_STEPS)


def test_piece_at_names_every_square_as_python_chess_does() -> None:
    rng = random.Random(9)
    board = chess.Board()
    boards = [board.copy()]
    for _ in range(120):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
        boards.append(board.copy())
    boards.append(chess.Board("4k3/8/8/8/8/8/8/4K2R w K - 0 1"))  # a piece on h1, none on h8
    boards.append(chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"))  # a8, h8, a1, h1
    for b in boards:
        s = state_from_fen(b.fen())
        for sq in range(64):
            piece = b.piece_type_at(sq)
            assert piece_at(s, sq) == (-1 if piece is None else piece - 1), (b.fen(), sq)
