"""Leaf evaluation ("simulation"): what a new node is worth to the side that moved into it.

Rewards are in [0, 1] for the side that made the move into the leaf:
1 win, 0.5 draw, 0 loss (or a scaled score).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.core.games import legal_moves, status
from engine.core.playout import playout
from engine.core.state import ONGOING, PLY_CAP, TURN
from engine.eval.evaluate import evaluate
from engine.search.codes import CUT_EVAL
from engine.search.parts.alphabeta import SearchArrays, minimax_value


@njit(cache=True, nogil=True)
def outcome_reward(outcome: int) -> float:
    """+1 / 0 / -1 for the mover → 1 / 0.5 / 0."""
    return 0.5 * (outcome + 1)


@njit(cache=True, nogil=True)
def playout_reward(
    s: np.ndarray,
    rng: np.ndarray,
    ply_cap: int,
    policy: int,
    moves: np.ndarray,
    hist: np.ndarray,
    record: np.ndarray,
    cap_eval: bool,
) -> tuple[float, int, int, int, float]:
    """Random playout from ``s`` (modified in place).

    Returns (reward for the mover into ``s``, status, plies, result for White, score).
    A playout that ``ply_cap`` cuts off before the game ends is scored by the game's
    rules at the cap (chess: a draw; knight chess: most knights) or, with ``cap_eval``,
    by the static evaluation of where it stopped: reward (1 + score) / 2 with ``score``
    in [-1, 1] for the mover, and status ``CUT_EVAL``. ``score`` is the result (+1 / 0
    / -1) for the mover otherwise.
    """
    mover = 1 - np.int64(s[TURN])
    code, white, plies = playout(s, rng, ply_cap, policy, moves, hist, record)
    # The cap, or knight chess's own 200-ply rule falling on the same ply: only a
    # position whose game goes on was cut off.
    if (
        cap_eval
        and code == PLY_CAP
        and plies == ply_cap
        and status(s, legal_moves(s, moves)) == ONGOING
    ):
        score = evaluate(s)
        if np.int64(s[TURN]) != mover:
            score = -score
        return 0.5 * (1.0 + score), CUT_EVAL, plies, 0, score
    mover_result = white if mover == 0 else -white
    return 0.5 * (mover_result + 1), code, plies, white, float(mover_result)


@njit(cache=True, nogil=True)
def minimax_reward(
    ctx: SearchArrays,
    s: np.ndarray,
    depth: int,
    quiesce: bool,
    ply_offset: int,
    scaled: bool,
    draw_margin: float,
) -> tuple[float, float]:
    """Alpha-beta score of the leaf mapped to a reward for the mover; (reward, mover's score).

    By sign: win 1, draw 0.5, loss 0, where a score within ``draw_margin`` of 0
    counts as a draw (0: the pure sign). Scaled: (1 + score) / 2 with the score
    clamped to [-1, 1] (mate scores saturate).
    """
    score = -minimax_value(ctx, s, depth, quiesce, ply_offset)
    if scaled:
        clamped = min(1.0, max(-1.0, score))
        return 0.5 * (1.0 + clamped), score
    if score > draw_margin:
        return 1.0, score
    if score < -draw_margin:
        return 0.0, score
    return 0.5, score
