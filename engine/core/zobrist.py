"""Zobrist key computed from scratch; ``make_move`` keeps it up to date incrementally."""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.core.bits import lsb, pop_lsb
from engine.core.state import CASTLING, EP, TURN, WHITE_BB
from engine.core.tables import ZOBRIST_CASTLE, ZOBRIST_EP, ZOBRIST_PIECE, ZOBRIST_SIDE


@njit(cache=True, nogil=True)
def full_hash(s: np.ndarray) -> np.uint64:
    """The key of ``s`` from its pieces, side, castling rights and en-passant square."""
    h = ZOBRIST_CASTLE[s[CASTLING]] ^ ZOBRIST_EP[s[EP]]
    if s[TURN]:
        h ^= ZOBRIST_SIDE
    for color in range(2):
        for pt in range(6):
            b = s[pt] & s[WHITE_BB + color]
            while b:
                h ^= ZOBRIST_PIECE[color, pt, lsb(b)]
                b = pop_lsb(b)
    return h
