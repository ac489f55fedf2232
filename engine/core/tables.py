"""Precomputed attack tables and Zobrist keys.

Built once at import in plain Python (a few milliseconds) and read by numba
kernels as frozen global constants. Sliding attacks use ray tables plus a
bit scan towards the first blocker (no magic numbers needed): positive
directions stop at the lowest set blocker bit, negative ones at the highest.
"""

from __future__ import annotations

import numpy as np

# Direction order: the first four step "up" the square numbering.
N, E, NE, NW, S, W, SW, SE = range(8)
_STEPS = {
    N: (0, 1),
    E: (1, 0),
    NE: (1, 1),
    NW: (-1, 1),
    S: (0, -1),
    W: (-1, 0),
    SW: (-1, -1),
    SE: (1, -1),
}


def _bb(*squares: int) -> int:
    out = 0
    for sq in squares:
        out |= 1 << sq
    return out


def _on_board(f: int, r: int) -> bool:
    return 0 <= f < 8 and 0 <= r < 8


def _leaper(deltas: list[tuple[int, int]]) -> np.ndarray:
    table = np.zeros(64, dtype=np.uint64)
    for sq in range(64):
        f, r = sq % 8, sq // 8
        table[sq] = _bb(*((r + dr) * 8 + f + df for df, dr in deltas if _on_board(f + df, r + dr)))
    return table


KNIGHT_ATTACKS = _leaper([(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)])
KING_ATTACKS = _leaper([(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)])
PAWN_ATTACKS = np.stack([_leaper([(-1, 1), (1, 1)]), _leaper([(-1, -1), (1, -1)])])

RAYS = np.zeros((8, 64), dtype=np.uint64)
for _d, (_df, _dr) in _STEPS.items():
    for _sq in range(64):
        _f, _r, _ray = _sq % 8 + _df, _sq // 8 + _dr, 0
        while _on_board(_f, _r):
            _ray |= 1 << (_r * 8 + _f)
            _f, _r = _f + _df, _r + _dr
        RAYS[_d, _sq] = _ray

ROOK_EMPTY = RAYS[N] | RAYS[E] | RAYS[S] | RAYS[W]
BISHOP_EMPTY = RAYS[NE] | RAYS[NW] | RAYS[SW] | RAYS[SE]

# BETWEEN[a, b]: squares strictly between a and b on a shared line, else 0.
# LINE[a, b]: the whole line through a and b (edge to edge), else 0.
BETWEEN = np.zeros((64, 64), dtype=np.uint64)
LINE = np.zeros((64, 64), dtype=np.uint64)
for _a in range(64):
    for _d in range(8):
        _opp = (_d + 4) % 8
        _ray = int(RAYS[_d, _a])
        for _b in range(64):
            if _ray >> _b & 1:
                BETWEEN[_a, _b] = _ray & ~int(RAYS[_d, _b]) & ~(1 << _b)
                LINE[_a, _b] = int(RAYS[_d, _a]) | int(RAYS[_opp, _a]) | (1 << _a)

RANK_1, RANK_2, RANK_7, RANK_8 = (np.uint64(0xFF << (8 * r)) for r in (0, 1, 6, 7))
RANK_4, RANK_5 = np.uint64(0xFF << 24), np.uint64(0xFF << 32)
LIGHT_SQUARES = np.uint64(0x55AA55AA55AA55AA)
DARK_SQUARES = np.uint64(0xAA55AA55AA55AA55)

# Castling: rights bits kept when a piece leaves or lands on a square.
CASTLE_KEEP = np.full(64, 15, dtype=np.uint64)
CASTLE_KEEP[4] = 15 & ~3  # e1
CASTLE_KEEP[7] = 15 & ~1  # h1
CASTLE_KEEP[0] = 15 & ~2  # a1
CASTLE_KEEP[60] = 15 & ~12  # e8
CASTLE_KEEP[63] = 15 & ~4  # h8
CASTLE_KEEP[56] = 15 & ~8  # a8

# ---------------------------------------------------------------- Zobrist keys
_rng = np.random.Generator(np.random.PCG64(20201111))
ZOBRIST_PIECE = _rng.integers(0, 2**63, size=(2, 6, 64), dtype=np.uint64) * np.uint64(
    2
) + np.uint64(1)
ZOBRIST_CASTLE = _rng.integers(0, 2**63, size=16, dtype=np.uint64) * np.uint64(2)
ZOBRIST_CASTLE[0] = 0
ZOBRIST_EP = _rng.integers(0, 2**63, size=65, dtype=np.uint64) * np.uint64(2)
ZOBRIST_EP[64] = 0  # no en-passant square
ZOBRIST_SIDE = np.uint64(_rng.integers(0, 2**63, dtype=np.uint64) * np.uint64(2) + np.uint64(1))

# Piece-square centralisation used by knight-chess evaluation (0 corner … 4 centre).
CENTRALITY = np.array([min(f, 7 - f, r, 7 - r) for r in range(8) for f in range(8)], dtype=np.int64)
