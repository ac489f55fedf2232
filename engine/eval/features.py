"""The evaluation's features: one numba kernel per game that fills a feature vector.

The evaluation is linear in its weights: a position's centipawn score for White is

    cp = (w_mg · f · phase + w_eg · f · (24 − phase)) / 24

where ``f`` is the vector these kernels write and ``phase`` (0 … 24) says how far from
the endgame the position is. Keeping the features apart from the weights is what lets
Texel's method (:mod:`engine.tune.texel`) fit the weights by regression, and lets a
learned evaluation reuse the same inputs.

Every feature is counted **White minus Black** and is mirror-symmetric (the same
position with colours and ranks swapped gives the negated vector), except the few
marked *side to move*: those describe the player to move (a knight it can take for
free) and enter the vector multiplied by +1 when White is to move and −1 when Black
is, so the evaluation stays symmetric while still telling mover from waiter.

Chess (``CHESS_FEATURES``): material per piece type; the piece-square tables (one
feature for the middlegame table, one for the endgame table; the tables themselves are
read from the weights file, fitted entry by entry by :mod:`engine.tune.texel_tables`);
mobility per piece type (attacked squares neither held by an own piece nor attacked by an
enemy pawn); king safety (own pawns in the shield in front of the king,
attacks of enemy pieces on the king's zone, files beside the king bare of own pawns);
pawn structure (doubled, isolated, passed pawns with a bonus growing with the square of
their advance); the bishop pair; rooks on open and half-open files; and the tempo.

Knight chess (``KNIGHT_FEATURES``): knights, mobility, centralisation, advance, knights
defended by a friendly knight, and, for the side to move, enemy knights it attacks,
enemy knights it can take for free, own knights attacked and own knights hanging. The
phase runs down with the ply count to the 200-ply rule, when only the knight count
matters.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.core.bits import lsb, pop_lsb, popcount
from engine.core.chess_core import SQ, bishop_attacks, rook_attacks
from engine.core.knight_core import PLY_LIMIT
from engine.core.state import (
    BISHOP,
    KING,
    KNIGHT,
    PAWN,
    PLY,
    ROOK,
    TURN,
    WHITE_BB,
)
from engine.core.tables import CENTRALITY, KING_ATTACKS, KNIGHT_ATTACKS
from engine.eval.names import (
    C_BISHOP_PAIR,
    C_DOUBLED,
    C_ISOLATED,
    C_KING_OPEN_FILES,
    C_KING_PRESSURE,
    C_KING_SHIELD,
    C_MOB_KNIGHT,
    C_PASSED,
    C_PASSED_RANK2,
    C_PAWN,
    C_PST_EG,
    C_PST_MG,
    C_ROOK_HALF_OPEN,
    C_ROOK_OPEN,
    C_TEMPO,
    K_ADVANCE,
    K_CENTRE,
    K_DEFENDED,
    K_KNIGHTS,
    K_MOBILITY,
    K_STM_ATTACKED,
    K_STM_ATTACKS,
    K_STM_FREE_CAPTURES,
    K_STM_HANGING,
    K_TEMPO,
    N_CHESS,
    N_KNIGHT,
)
from engine.eval.names import (
    CHESS_FEATURES as CHESS_FEATURES,  # re-exported: the features' names live beside them
)
from engine.eval.names import (
    KNIGHT_FEATURES as KNIGHT_FEATURES,
)
from engine.eval.weights import shipped_weights

MAX_PHASE = 24
PHASE_WEIGHT = np.array([0, 1, 1, 2, 4, 0], dtype=np.int64)

#: The piece-square tables the kernel reads (White's view, a1 = 0), fitted with the
#: weights (:mod:`engine.tune.texel_tables`) and stored in the weights file.
PST_MG, PST_EG = shipped_weights().chess_tables


def _masks() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """File masks, adjacent-file masks, passed-pawn spans and king shields per colour."""
    files = np.array([0x0101010101010101 << f for f in range(8)], dtype=np.uint64)
    adjacent = np.zeros(8, dtype=np.uint64)
    for f in range(8):
        if f > 0:
            adjacent[f] |= files[f - 1]
        if f < 7:
            adjacent[f] |= files[f + 1]
    passed = np.zeros((2, 64), dtype=np.uint64)  # squares an enemy pawn must not hold
    shield = np.zeros((2, 64), dtype=np.uint64)  # the two ranks in front of the king
    for color in range(2):
        ahead = 1 if color == 0 else -1
        for sq in range(64):
            f, r = sq % 8, sq // 8
            span = 0
            guard = 0
            for ff in range(max(0, f - 1), min(7, f + 1) + 1):
                for rr in range(8):
                    if (rr - r) * ahead > 0:
                        span |= 1 << (rr * 8 + ff)
                    if 0 < (rr - r) * ahead <= 2:
                        guard |= 1 << (rr * 8 + ff)
            passed[color, sq] = span
            shield[color, sq] = guard
    return files, adjacent, passed, shield


FILES, ADJACENT_FILES, PASSED_SPAN, KING_SHIELD = _masks()
NOT_FILE_A = np.uint64(0xFEFEFEFEFEFEFEFE)
NOT_FILE_H = np.uint64(0x7F7F7F7F7F7F7F7F)
U7 = np.uint64(7)
U9 = np.uint64(9)


@njit(cache=True, nogil=True)
def pawn_attacks(pawns: np.uint64, color: int) -> np.uint64:
    """Every square a set of pawns of ``color`` attacks."""
    if color == 0:
        return ((pawns & NOT_FILE_A) << U7) | ((pawns & NOT_FILE_H) << U9)
    return ((pawns & NOT_FILE_A) >> U9) | ((pawns & NOT_FILE_H) >> U7)


@njit(cache=True, nogil=True, inline="always")
def square_sums(b: np.uint64, pt: int, flip: int) -> tuple[int, int]:
    """The middlegame and endgame square-table sums of the pieces of type ``pt`` on ``b``
    (``flip`` mirrors Black's squares)."""
    mg = 0
    eg = 0
    while b:
        sq = lsb(b) ^ flip
        b = pop_lsb(b)
        mg += PST_MG[pt, sq]
        eg += PST_EG[pt, sq]
    return mg, eg


@njit(cache=True, nogil=True)
def chess_features(s: np.ndarray, f: np.ndarray) -> float:
    """Fill ``f``'s first ``N_CHESS`` entries (it may be longer: a search's scratch for
    either game) with White-minus-Black features; return the phase."""
    for i in range(N_CHESS):
        f[i] = 0.0
    occ = s[WHITE_BB] | s[WHITE_BB + 1]
    phase = 0
    for color in range(2):
        sign = 1.0 if color == 0 else -1.0
        flip = 0 if color == 0 else 56  # mirror ranks for Black's tables
        own = s[WHITE_BB + color]
        enemy = s[WHITE_BB + 1 - color]
        own_pawns = s[PAWN] & own
        enemy_pawns = s[PAWN] & enemy
        safe = ~own & ~pawn_attacks(enemy_pawns, 1 - color)
        enemy_king = s[KING] & enemy
        zone = np.uint64(0)
        if enemy_king:
            ek = lsb(enemy_king)
            zone = KING_ATTACKS[ek] | SQ[ek]

        # Each piece type has a loop of its own, so the branches on the type go the same
        # way for every piece of a loop (one branch on the type per piece, taken a new
        # way at each piece, was the evaluation's costliest line), and the counts are
        # kept in registers. Every term is a whole number, so the sums are exactly those
        # of adding them one piece at a time.
        pst_mg, pst_eg = square_sums(own_pawns, PAWN, flip)
        king_mg, king_eg = square_sums(s[KING] & own, KING, flip)
        pst_mg += king_mg
        pst_eg += king_eg
        f[C_PAWN] += sign * popcount(own_pawns)
        pressure = 0
        for pt in range(KNIGHT, KING):
            b = s[pt] & own
            count = popcount(b)
            phase += PHASE_WEIGHT[pt] * count
            f[pt] += sign * count
            mobility = 0
            while b:
                sq = lsb(b)
                b = pop_lsb(b)
                pst_mg += PST_MG[pt, sq ^ flip]
                pst_eg += PST_EG[pt, sq ^ flip]
                if pt == KNIGHT:
                    a = KNIGHT_ATTACKS[sq]
                elif pt == BISHOP:
                    a = bishop_attacks(sq, occ)
                elif pt == ROOK:
                    a = rook_attacks(sq, occ)
                    file_mask = FILES[sq & 7]
                    if not (file_mask & s[PAWN]):
                        f[C_ROOK_OPEN] += sign
                    elif not (file_mask & own_pawns):
                        f[C_ROOK_HALF_OPEN] += sign
                else:
                    a = rook_attacks(sq, occ) | bishop_attacks(sq, occ)
                mobility += popcount(a & safe)
                pressure += popcount(a & zone)
            f[C_MOB_KNIGHT + pt - KNIGHT] += sign * mobility
        f[C_PST_MG] += sign * pst_mg
        f[C_PST_EG] += sign * pst_eg
        f[C_KING_PRESSURE] += sign * pressure
        if popcount(s[BISHOP] & own) >= 2:
            f[C_BISHOP_PAIR] += sign

        for file in range(8):
            n = popcount(FILES[file] & own_pawns)
            if n > 1:
                f[C_DOUBLED] += sign * (n - 1)
            if n and not (ADJACENT_FILES[file] & own_pawns):
                f[C_ISOLATED] += sign * n
        b = own_pawns
        while b:
            sq = lsb(b)
            b = pop_lsb(b)
            if not (PASSED_SPAN[color, sq] & enemy_pawns):
                advance = sq >> 3 if color == 0 else 7 - (sq >> 3)  # 1 on its start rank … 6
                f[C_PASSED] += sign
                f[C_PASSED_RANK2] += sign * advance * advance

        king = s[KING] & own
        if king:
            k = lsb(king)
            f[C_KING_SHIELD] += sign * popcount(KING_SHIELD[color, k] & own_pawns)
            kf = k & 7
            for file in range(max(0, kf - 1), min(7, kf + 1) + 1):
                if not (FILES[file] & own_pawns):
                    f[C_KING_OPEN_FILES] += sign
    f[C_TEMPO] = 1.0 if s[TURN] == 0 else -1.0
    return float(min(phase, MAX_PHASE))


@njit(cache=True, nogil=True)
def knight_features(s: np.ndarray, f: np.ndarray) -> float:
    """Fill ``f``'s first ``N_KNIGHT`` entries with knight-chess features; return the phase.

    The phase falls linearly from 24 at the start to 0 at the 200-ply rule.
    """
    for i in range(N_KNIGHT):
        f[i] = 0.0
    att_white = np.uint64(0)
    att_black = np.uint64(0)
    for color in range(2):
        sign = 1.0 if color == 0 else -1.0
        own = s[WHITE_BB + color]
        b = own & s[KNIGHT]
        seen = np.uint64(0)
        while b:
            sq = lsb(b)
            b = pop_lsb(b)
            a = KNIGHT_ATTACKS[sq]
            seen |= a
            f[K_KNIGHTS] += sign
            f[K_MOBILITY] += sign * popcount(a & ~own)
            f[K_CENTRE] += sign * CENTRALITY[sq]
            f[K_ADVANCE] += sign * ((sq >> 3) if color == 0 else 7 - (sq >> 3))
        if color == 0:
            att_white = seen
        else:
            att_black = seen
        f[K_DEFENDED] += sign * popcount(own & s[KNIGHT] & seen)
    us = np.int64(s[TURN])
    stm = 1.0 if us == 0 else -1.0
    mine = s[WHITE_BB + us] & s[KNIGHT]
    theirs = s[WHITE_BB + 1 - us] & s[KNIGHT]
    ours, others = (att_white, att_black) if us == 0 else (att_black, att_white)
    f[K_STM_ATTACKS] = stm * popcount(theirs & ours)
    f[K_STM_FREE_CAPTURES] = stm * popcount(theirs & ours & ~others)
    f[K_STM_ATTACKED] = stm * popcount(mine & others)
    f[K_STM_HANGING] = stm * popcount(mine & others & ~ours)
    f[K_TEMPO] = stm
    left = min(max(np.int64(PLY_LIMIT) - np.int64(s[PLY]), np.int64(0)), np.int64(PLY_LIMIT))
    return MAX_PHASE * left / PLY_LIMIT
