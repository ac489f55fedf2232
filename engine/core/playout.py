"""Random playouts: play a game out from a position with a seeded random policy.

Policies
--------
``UNIFORM``        every legal move equally likely.
``CAPTURE_FIRST``  if any capture exists choose only among captures, otherwise
                   among all moves ("attack the enemy knight first", the
                   knight-chess reference controller's policy).

Results are returned from **White's point of view** (+1 win, 0 draw, -1 loss);
the search converts them to the point of view it needs.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.core.bits import rng_below
from engine.core.games import cap_result, legal_moves, make_move, result, status
from engine.core.state import (
    CHESS,
    FLAG_CAPTURE,
    GAME,
    HALFMOVE,
    HASH,
    MAX_MOVES,
    ONGOING,
    PLY_CAP,
    REPETITION,
)

UNIFORM = 0
CAPTURE_FIRST = 1
POLICIES = {"uniform": UNIFORM, "capture_first": CAPTURE_FIRST}
DEFAULT_PLY_CAP = 200


@njit(cache=True, nogil=True)
def choose_move(moves: np.ndarray, n: int, policy: int, rng: np.ndarray) -> int:
    """Pick one of ``moves[:n]`` according to ``policy``."""
    if policy == CAPTURE_FIRST:
        captures = 0
        for i in range(n):
            if moves[i] & FLAG_CAPTURE:
                captures += 1
        if captures:
            k = rng_below(rng, captures)
            for i in range(n):
                if moves[i] & FLAG_CAPTURE:
                    if k == 0:
                        return moves[i]
                    k -= 1
    return moves[rng_below(rng, n)]


@njit(cache=True, nogil=True)
def _repeated_three_times(hist: np.ndarray, ply: int, reversible: int) -> bool:
    """Whether hist[ply] occurred twice before within the reversible plies of this playout."""
    seen = 0
    back = min(reversible, ply)
    key = hist[ply]
    for k in range(4, back + 1, 2):
        if hist[ply - k] == key:
            seen += 1
            if seen == 2:
                return True
    return False


@njit(cache=True, nogil=True)
def playout(
    s: np.ndarray,
    rng: np.ndarray,
    ply_cap: int,
    policy: int,
    moves: np.ndarray,
    hist: np.ndarray,
    record: np.ndarray,
) -> tuple[int, int, int]:
    """Play ``s`` out in place; return (status, result for White, plies played).

    ``moves`` is scratch of length MAX_MOVES, ``hist`` scratch of length
    ``ply_cap + 1``; the moves played are written to ``record`` while it has
    room (pass an empty array to skip). Chess repetition is approximated by
    the Zobrist keys of this playout only: a position seen three times since
    the last capture or pawn move is a draw.
    """
    is_chess = s[GAME] == CHESS
    for ply in range(ply_cap + 1):
        n = legal_moves(s, moves)
        code = status(s, n)
        if code != ONGOING:
            return code, result(s, code), ply
        if ply == ply_cap:
            break
        if is_chess:
            hist[ply] = s[HASH]
            # A threefold needs two earlier visits at least four plies apart.
            if s[HALFMOVE] >= 8 and _repeated_three_times(hist, ply, np.int64(s[HALFMOVE])):
                return REPETITION, 0, ply
        m = choose_move(moves, n, policy, rng)
        if ply < record.shape[0]:
            record[ply] = m
        make_move(s, m)
    return PLY_CAP, cap_result(s), ply_cap


@njit(cache=True, nogil=True)
def playouts(
    root: np.ndarray, count: int, rng: np.ndarray, ply_cap: int, policy: int
) -> np.ndarray:
    """Run ``count`` playouts from ``root``; return [white wins, draws, black wins, plies]."""
    totals = np.zeros(4, dtype=np.int64)
    s = root.copy()
    moves = np.empty(MAX_MOVES, dtype=np.int32)
    hist = np.empty(ply_cap + 1, dtype=np.uint64)
    record = np.empty(0, dtype=np.int32)
    for _ in range(count):
        s[:] = root
        _, r, plies = playout(s, rng, ply_cap, policy, moves, hist, record)
        totals[1 - r] += 1
        totals[3] += plies
    return totals
