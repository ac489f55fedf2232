"""Leaf evaluation without a random playout: a quiescence search, shared between transpositions.

A static evaluation is blind to a capture in progress: after 1.e4 a6 2.Bc4 Nf6 3.Qh5,
…Nxh5 reads "a queen up" and …d6 reads "equal", but so does every reply that lets
Qxf7 mate. The quiescence search (:func:`engine.search.parts.alphabeta.qsearch`)
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

from engine.core.bits import table_slot
from engine.core.games import in_check
from engine.core.state import HASH
from engine.search.parts.alphabeta import (
    ABORTED,
    INF,
    NODES,
    SearchArrays,
    evaluate_cached,
    negamax,
    qsearch,
)

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
    ctx: SearchArrays,
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
    key = s[HASH]
    slot = table_slot(cache_keys, key)
    if use_cache and cache_keys[slot] == key:
        ctx.pv_len[0] = 0
        return float(cache_scores[slot]), True
    score = search_score(ctx, s, quiesce, depth, ply_offset)
    if ctx.stats[ABORTED]:
        return 0.0, False
    if use_cache:
        cache_keys[slot] = key
        cache_scores[slot] = score
    return score, False


@njit(cache=True, nogil=True)
def search_score(
    ctx: SearchArrays, s: np.ndarray, quiesce: bool, depth: int, ply_offset: int
) -> float:
    """The leaf search itself, full window, no table: alpha-beta to ``depth`` plies ending
    in the quiescence search (or the evaluation), clamped to [-1, 1] — a mate met inside
    it saturates. The line is left in ``ctx``'s PV row 0; a stopped search returns 0 with
    ``ctx``'s ABORTED set."""
    score = window_score(ctx, s, quiesce, depth, -INF, INF, ply_offset)
    if ctx.stats[ABORTED]:
        return 0.0
    return min(1.0, max(-1.0, score))


@njit(cache=True, nogil=True)
def window_score(
    ctx: SearchArrays,
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
    if quiesce and depth == 0 and beta < INF and not in_check(s):
        # The quiescence search's first node would stand pat at once: so it does for
        # about five in six of the children an expansion scores with a null window (bad
        # moves, shown bad by the evaluation alone). This skips that node's move
        # generation; only a stalemate (no legal move, not in check, yet a standing
        # score at or above ``beta``) reads otherwise.
        ctx.states[0] = s
        stand = evaluate_cached(ctx, 0)
        if stand >= beta:
            ctx.pv_len[0] = 0
            ctx.stats[NODES] += 1
            return stand
    ctx.states[0] = s
    if depth > 0:
        return negamax(ctx, 0, depth, alpha, beta, quiesce, ply_offset)
    if quiesce:
        return qsearch(ctx, 0, alpha, beta, ply_offset, 0)
    ctx.pv_len[0] = 0
    return evaluate_cached(ctx, 0)
