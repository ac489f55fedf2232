"""Knight chess on bitboards in numba (rules: shared/specs/knight-chess.md).

Only the KNIGHT bitboard and the two colour boards are used. Every knight jump
to a square not held by the mover is legal; there is no check, so move
generation is a table lookup per knight.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.core.bits import U0, U1, lsb, pop_lsb, popcount
from engine.core.chess_core import add_targets
from engine.core.state import (
    EP,
    FLAG_CAPTURE,
    HALFMOVE,
    HASH,
    KNIGHT,
    NO_KNIGHTS,
    NO_MOVES,
    NO_SQUARE,
    ONGOING,
    PLY,
    PLY_CAP,
    TURN,
    WHITE_BB,
)
from engine.core.tables import KNIGHT_ATTACKS, ZOBRIST_PIECE, ZOBRIST_SIDE

PLY_LIMIT = 200  # rule 2: the game ends after 200 plies counted from the start

SQ = np.array([1 << i for i in range(64)], dtype=np.uint64)


@njit(cache=True, nogil=True)
def legal_moves(s: np.ndarray, out: np.ndarray) -> int:
    """Write every legal knight jump of ``s`` into ``out``; return how many."""
    us = np.int64(s[TURN])
    own = s[WHITE_BB + us]
    enemy = s[WHITE_BB + 1 - us]
    n = 0
    pieces = own
    while pieces:
        frm = lsb(pieces)
        pieces = pop_lsb(pieces)
        n = add_targets(out, n, frm, KNIGHT_ATTACKS[frm] & ~own, enemy)
    return n


@njit(cache=True, nogil=True)
def make_move(s: np.ndarray, m: int) -> None:
    """Play legal move ``m`` on ``s`` in place."""
    frm = m & 63
    to = (m >> 6) & 63
    us = np.int64(s[TURN])
    them = 1 - us
    h = s[HASH] ^ ZOBRIST_SIDE
    if m & FLAG_CAPTURE:
        s[KNIGHT] ^= SQ[to]
        s[WHITE_BB + them] ^= SQ[to]
        h ^= ZOBRIST_PIECE[them, KNIGHT, to]
        s[HALFMOVE] = U0
    else:
        s[HALFMOVE] += U1
    move = SQ[frm] | SQ[to]
    s[KNIGHT] ^= move
    s[WHITE_BB + us] ^= move
    h ^= ZOBRIST_PIECE[us, KNIGHT, frm] ^ ZOBRIST_PIECE[us, KNIGHT, to]
    s[EP] = NO_SQUARE
    s[PLY] += U1
    s[TURN] = them
    s[HASH] = h


@njit(cache=True, nogil=True)
def status(s: np.ndarray, n_legal: int) -> int:
    """Rules 1-3 in order: extinction, the 200-ply limit, no legal move."""
    if not s[WHITE_BB] or not s[WHITE_BB + 1]:
        return NO_KNIGHTS
    if s[PLY] >= PLY_LIMIT:
        return PLY_CAP
    if n_legal == 0:
        return NO_MOVES
    return ONGOING


@njit(cache=True, nogil=True)
def material_result(s: np.ndarray) -> int:
    """Rule 2 scoring: more knights wins, equal counts draw; +1/0/-1 for White."""
    diff = popcount(s[WHITE_BB]) - popcount(s[WHITE_BB + 1])
    if diff > 0:
        return 1
    if diff < 0:
        return -1
    return 0


@njit(cache=True, nogil=True)
def result(s: np.ndarray, code: int) -> int:
    """+1 / 0 / -1 from White's point of view for a finished game.

    Every ending is scored by counting knights; a side with none has fewer.
    """
    return material_result(s)
