"""Leaf evaluation without a random playout: a quiescence search, shared between transpositions.

A static evaluation is blind to a capture in progress: after 1.e4 a6 2.Bc4 Nf6 3.Qh5,
…Nxh5 reads "a queen up" and …d6 reads "equal", but so does every reply that lets
Qxf7 mate. The quiescence search (:func:`engine.search.alphabeta_core.qsearch`)
plays the captures and promotions out — every evasion when in check — until the
position is quiet, and evaluates there; the MCTS reward is that score squashed to
[0, 1] (early playout termination at depth 0, with a search instead of a playout).

The score of a position does not depend on how it was reached, so a small
Zobrist-keyed table (one key and one float per slot, always replaced) lets
positions reached by different move orders share their leaf evaluation.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.core.state import HASH
from engine.search.alphabeta_core import ABORTED, INF, negamax, qsearch
from engine.search.evaluation import evaluate

CACHE_SLOT_BYTES = 12  # uint64 key + float32 score


class LeafCache:
    """The transposition table of leaf scores (a power of two of slots)."""

    def __init__(self, megabytes: float) -> None:
        slots = max(1, int(megabytes * 1024 * 1024) // CACHE_SLOT_BYTES)
        size = 1 << (slots.bit_length() - 1)
        self.keys = np.zeros(size, dtype=np.uint64)
        self.scores = np.zeros(size, dtype=np.float32)

    @property
    def memory_bytes(self) -> int:
        return self.keys.nbytes + self.scores.nbytes


@njit(cache=True, nogil=True)
def leaf_score(
    ctx: tuple,
    s: np.ndarray,
    quiesce: bool,
    depth: int,
    cache_keys: np.ndarray,
    cache_scores: np.ndarray,
    use_cache: bool,
    ply_offset: int,
) -> tuple[float, bool]:
    """Score in [-1, 1] of ``s`` (not a finished game) for its side to move, and whether
    it came from the cache. With ``depth`` > 0 the score is an alpha-beta search of that
    many plies ending in the quiescence search (or the evaluation). The line is left in
    ``ctx``'s PV row 0 (empty for a cached or static score); a stopped search returns
    with ``ctx``'s ABORTED set."""
    pv_len = ctx[5]
    key = s[HASH]
    slot = np.int64(key & np.uint64(cache_keys.shape[0] - 1))
    if use_cache and cache_keys[slot] == key:
        pv_len[0] = 0
        return float(cache_scores[slot]), True
    if depth > 0:
        ctx[0][0] = s
        score = negamax(ctx, 0, depth, -INF, INF, quiesce, ply_offset)
        if ctx[11][ABORTED]:
            return 0.0, False
    elif quiesce:
        ctx[0][0] = s
        score = qsearch(ctx, 0, -INF, INF, ply_offset, 0)
        if ctx[11][ABORTED]:
            return 0.0, False
    else:
        pv_len[0] = 0
        score = evaluate(s)
    score = min(1.0, max(-1.0, score))  # a mate met inside the quiescence search saturates
    if use_cache:
        cache_keys[slot] = key
        cache_scores[slot] = score
    return score, False


@njit(cache=True, nogil=True)
def window_score(
    ctx: tuple,
    s: np.ndarray,
    quiesce: bool,
    depth: int,
    alpha: float,
    beta: float,
    ply_offset: int,
) -> float:
    """:func:`leaf_score`'s search of ``s`` (for its side to move) within ``(alpha, beta)``,
    no table: a result at or below ``alpha`` is an upper bound, at or above ``beta`` a
    lower bound, and only one strictly between them is exact. Lets the caller prove a
    move worse than a known one with a null window instead of scoring it exactly."""
    ctx[0][0] = s
    if depth > 0:
        return negamax(ctx, 0, depth, alpha, beta, quiesce, ply_offset)
    if quiesce:
        return qsearch(ctx, 0, alpha, beta, ply_offset, 0)
    ctx[5][0] = 0
    return evaluate(s)
