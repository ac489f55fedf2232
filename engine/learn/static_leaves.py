"""Training positions for an evaluation applied at *unsettled* leaves (``--target quiescence``).

``alphabeta``, ``mcts`` and ``bfms leaf=quiescence`` call the evaluation only where a
quiescence search stands pat, so the usual training positions are quiet ones: the
principal-variation leaves of the self-play games. ``uct-minimax`` (a depth-3 search
without quiescence) and ``bfms leaf=static`` call it on whatever position their search
ends on — often one where a knight hangs or an exchange is under way. Fitted to quiet
positions, the evaluation has never seen those; fitted to them, with the contact table
free (who attacks whom, who defends), it can learn what the pending exchange is worth.

So each sampled PV leaf contributes itself and a few of its children (one seeded random
move away, the kind of position such a search evaluates), each scored by the **hand
evaluation's 1-ply search with quiescence** — the exchange played out — and paired with
its game's result for its side to move. The fit's target is then
``lam · result + (1 − lam) · score``.

Everything here is a pure function of the games and the seed (a fixed-depth search, no
clock), so ``canopy train`` stays reproducible.
"""

from __future__ import annotations

import numpy as np

EVERY = 3  # every third PV leaf is sampled
CHILDREN = 6  # children of each sampled leaf, drawn without replacement
DEPTH = 1  # the scoring search's depth before its quiescence search


def static_positions(
    states: np.ndarray, game_of: np.ndarray, white: np.ndarray, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(positions, result, score, game)``: the sampled leaves and their children, each
    one's game result and search score (both expected scores in [0, 1] for its side to
    move) and the index of its game (for holding games out)."""
    from engine.core.games import legal_moves, make_move, status
    from engine.core.state import MAX_MOVES, ONGOING, TURN
    from engine.search.parts.alphabeta import SearchContext, minimax_value

    rng = np.random.default_rng([seed, 0x51A71C])
    ctx = SearchContext(16)
    arrays = ctx.arrays
    buf = np.zeros(MAX_MOVES, dtype=np.int32)
    out: list[np.ndarray] = []
    result: list[float] = []
    score: list[float] = []
    game: list[int] = []
    for i in range(0, len(states), EVERY):
        leaf = states[i]
        n = legal_moves(leaf, buf)
        if status(leaf, n) != ONGOING:
            continue
        picks = rng.choice(buf[:n], size=min(CHILDREN, n), replace=False)
        w = float(white[game_of[i]])
        for move in (-1, *(int(m) for m in picks)):
            p = leaf.copy()
            if move >= 0:
                make_move(p, move)
                if status(p, legal_moves(p, buf)) != ONGOING:
                    continue
            ctx.reset_counters(0)
            value = min(1.0, max(-1.0, minimax_value(arrays, p, DEPTH, True, 0)))
            out.append(p)
            result.append(w if int(p[TURN]) == 0 else 1.0 - w)
            score.append((value + 1.0) / 2.0)
            game.append(int(game_of[i]))
    width = states.shape[1]
    return (
        np.array(out, dtype=np.uint64).reshape(-1, width),
        np.array(result),
        np.array(score),
        np.array(game, dtype=np.int64),
    )
