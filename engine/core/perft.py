"""Perft: count the leaves of the legal-move tree, the standard move-generator test.

Leaves are counted at the last ply ("bulk counting"): at depth 1 the legal
moves are counted, not played, as Stockfish's perft does.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.core.games import legal_moves, make_move
from engine.core.state import MAX_MOVES, STATE_SIZE


@njit("int64(uint64[:, ::1], int32[:, ::1], int64, int64)", cache=True, nogil=True)
def _perft(states: np.ndarray, moves: np.ndarray, ply: int, depth: int) -> int:
    n = legal_moves(states[ply], moves[ply])
    if depth <= 1:
        return n
    total = 0
    child = states[ply + 1]
    for i in range(n):
        child[:] = states[ply]
        make_move(child, moves[ply, i])
        total += _perft(states, moves, ply + 1, depth - 1)
    return total


@njit(cache=True, nogil=True)
def perft(s: np.ndarray, depth: int) -> int:
    """Number of leaf positions ``depth`` plies below ``s`` (1 for depth 0)."""
    if depth == 0:
        return 1
    states = np.empty((depth + 1, STATE_SIZE), dtype=np.uint64)
    moves = np.empty((depth + 1, MAX_MOVES), dtype=np.int32)
    states[0] = s
    return _perft(states, moves, 0, depth)


@njit(cache=True, nogil=True)
def divide(s: np.ndarray, depth: int, out_moves: np.ndarray, out_counts: np.ndarray) -> int:
    """Per-root-move leaf counts (``perft divide``), for locating generator bugs."""
    states = np.empty((depth + 1, STATE_SIZE), dtype=np.uint64)
    moves = np.empty((depth + 1, MAX_MOVES), dtype=np.int32)
    states[0] = s
    n = legal_moves(states[0], moves[0])
    for i in range(n):
        states[1] = states[0]
        make_move(states[1], moves[0, i])
        out_moves[i] = moves[0, i]
        out_counts[i] = 1 if depth <= 1 else _perft(states, moves, 1, depth - 1)
    return n
