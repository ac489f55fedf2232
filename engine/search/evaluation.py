"""Static evaluation for both games, in centipawns and squashed to [-1, 1].

Every function here scores **for the side to move**.

Chess: material plus piece-square tables, tapered between a middlegame and an
endgame table by the remaining non-pawn material (phase 24 = all pieces on,
0 = bare kings and pawns).

Knight chess: 100 per knight of material difference, 4 per available jump
of mobility difference, 3 per step of centralisation (0 on the rim, 3 in the
four centre squares) difference.

Squashing: ``eval = 2 / (1 + 10 ** (-cp / 400)) - 1``, i.e. twice the expected
score of the logistic Elo model minus one. +100 cp ≈ +0.28, +400 cp ≈ +0.82,
a queen up ≈ +0.99. Mate scores never pass through it: a win found by search
is ``WIN - 10 * ply`` (``WIN = 10000``), far outside [-1, 1].
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from engine.core.bits import lsb, pop_lsb, popcount
from engine.core.state import (
    BISHOP,
    CHESS,
    GAME,
    KING,
    KNIGHT,
    PAWN,
    QUEEN,
    ROOK,
    TURN,
    WHITE_BB,
)
from engine.core.tables import CENTRALITY, KNIGHT_ATTACKS

WIN = 10000.0
PLY_PENALTY = 10.0
SQUASH_CP = 400.0

MATERIAL_MG = np.array([100, 320, 330, 500, 950, 0], dtype=np.int64)
MATERIAL_EG = np.array([120, 300, 320, 530, 950, 0], dtype=np.int64)
PHASE_WEIGHT = np.array([0, 1, 1, 2, 4, 0], dtype=np.int64)
MAX_PHASE = 24


def _tables() -> tuple[np.ndarray, np.ndarray]:
    """Piece-square tables (White's view, a1 = 0), middlegame and endgame."""
    mg = np.zeros((6, 64), dtype=np.int64)
    eg = np.zeros((6, 64), dtype=np.int64)
    pawn_mg_rank = [0, 0, 4, 8, 16, 28, 48, 0]
    pawn_eg_rank = [0, 0, 8, 16, 30, 50, 80, 0]
    king_mg_rank1 = [20, 30, 10, -5, 0, 10, 30, 20]
    for sq in range(64):
        f, r = sq % 8, sq // 8
        centre = int(CENTRALITY[sq])  # 0 rim … 3 centre
        central_file = 1 if f in (3, 4) else 0
        mg[PAWN, sq] = pawn_mg_rank[r] + (12 if central_file and r in (3, 4) else 0)
        eg[PAWN, sq] = pawn_eg_rank[r]
        mg[KNIGHT, sq] = 12 * centre - 20
        eg[KNIGHT, sq] = 8 * centre - 14
        mg[BISHOP, sq] = 5 * centre - 8 + (6 if f == r or f + r == 7 else 0)
        eg[BISHOP, sq] = 4 * centre - 6
        mg[ROOK, sq] = (18 if r == 6 else 0) + (6 if f in (3, 4) else 0) - (4 if f in (0, 7) else 0)
        eg[ROOK, sq] = 6 if r == 6 else 0
        mg[QUEEN, sq] = 3 * centre - 5 - (8 if r >= 4 and r <= 5 and centre < 2 else 0)
        eg[QUEEN, sq] = 6 * centre - 9
        mg[KING, sq] = (
            king_mg_rank1[f] if r == 0 else (8 if r == 1 and f in (0, 1, 6, 7) else 0) - 12 * r
        )
        eg[KING, sq] = 12 * centre - 18
    return mg, eg


PST_MG, PST_EG = _tables()


@njit(cache=True, nogil=True)
def chess_cp(s: np.ndarray) -> float:
    """Tapered material + piece-square score in centipawns for the side to move."""
    mg = 0
    eg = 0
    phase = 0
    for color in range(2):
        sign = 1 if color == 0 else -1
        flip = 0 if color == 0 else 56  # mirror ranks for Black
        own = s[WHITE_BB + color]
        for pt in range(6):
            b = s[pt] & own
            while b:
                sq = lsb(b) ^ flip
                b = pop_lsb(b)
                mg += sign * (MATERIAL_MG[pt] + PST_MG[pt, sq])
                eg += sign * (MATERIAL_EG[pt] + PST_EG[pt, sq])
                phase += PHASE_WEIGHT[pt]
    if phase > MAX_PHASE:
        phase = MAX_PHASE
    cp = (mg * phase + eg * (MAX_PHASE - phase)) / MAX_PHASE
    return cp if s[TURN] == 0 else -cp


@njit(cache=True, nogil=True)
def knight_cp(s: np.ndarray) -> float:
    """Knight count, mobility and centralisation difference, for the side to move."""
    score = 0
    for color in range(2):
        sign = 1 if color == 0 else -1
        own = s[WHITE_BB + color]
        b = own & s[KNIGHT]
        while b:
            sq = lsb(b)
            b = pop_lsb(b)
            score += sign * (100 + 4 * popcount(KNIGHT_ATTACKS[sq] & ~own) + 3 * CENTRALITY[sq])
    return float(score) if s[TURN] == 0 else -float(score)


@njit(cache=True, nogil=True)
def centipawns(s: np.ndarray) -> float:
    if s[GAME] == CHESS:
        return chess_cp(s)
    return knight_cp(s)


@njit(cache=True, nogil=True)
def game_value(outcome: int, ply: int) -> float:
    """A finished game's value for one side: win ``WIN - 10 * ply``, loss its negative, draw 0.

    ``outcome`` is +1 / 0 / -1 for that side; ``ply`` counts from the search root,
    so a quicker win is worth more.
    """
    if outcome > 0:
        return WIN - PLY_PENALTY * ply
    if outcome < 0:
        return -(WIN - PLY_PENALTY * ply)
    return 0.0


@njit(cache=True, nogil=True)
def squash(cp: float) -> float:
    """Centipawns → [-1, 1] (logistic, 400 cp per factor of ten in odds)."""
    return 2.0 / (1.0 + 10.0 ** (-cp / SQUASH_CP)) - 1.0


@njit(cache=True, nogil=True)
def evaluate(s: np.ndarray) -> float:
    """Static evaluation in [-1, 1] for the side to move."""
    return squash(centipawns(s))


def unsquash(value: float) -> float:
    """Inverse of :func:`squash` (for UCI ``score cp``); clamps at ±3000 cp."""
    v = max(-0.9999, min(0.9999, value))
    return max(-3000.0, min(3000.0, -SQUASH_CP * math.log10(2.0 / (v + 1.0) - 1.0)))


def is_mate_score(value: float) -> bool:
    return abs(value) > WIN / 2


def mate_plies(value: float) -> int:
    """Plies to the mate a score announces (positive: the side it scores for mates)."""
    return round((WIN - abs(value)) / PLY_PENALTY)
