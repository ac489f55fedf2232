"""A first network that knows what the hand evaluation knows: distillation.

A network over 768 piece-square inputs starts knowing nothing, and a few hundred
thousand self-play positions — an hour of games on two cores — are too few for it to
learn even what the hand evaluation already says (measured: docs/learning.md). Engines
that moved to NNUE began the same way: their first networks were trained on positions
labelled by their hand-made evaluation, in numbers no self-play could give, and only
then on their games.

Canopy's version: every legal move from every position of the self-play data gives a
child position — the positions a search meets one ply away from the games, in their
millions — labelled with the hand evaluation where it is settled (not in check, and the
quiescence search keeps the static score: no capture changes it). The network is fitted
to these first (``λ = 0``: the label alone), then to the self-play positions with their
searches' scores and the games' results (:func:`engine.learn.nnue_fit.fit` with
``start``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.core.games import in_check, legal_moves, make_move, status
from engine.core.state import MAX_MOVES, ONGOING, STATE_SIZE
from engine.eval.evaluate import evaluate_into
from engine.learn.nnue_data import RECORD, pack_record, states_of
from engine.search.parts.alphabeta import INF, SearchArrays, SearchContext, qsearch


@njit(cache=True, nogil=True)
def _children(
    parents: np.ndarray, ctx: SearchArrays, states: np.ndarray, scores: np.ndarray,
    parent_of: np.ndarray,
) -> int:  # fmt: skip
    """Fill ``states``/``scores`` with the settled children of ``parents``; their count."""
    moves = np.zeros(MAX_MOVES, dtype=np.int32)
    child = np.zeros(STATE_SIZE, dtype=np.uint64)
    count = 0
    for i in range(parents.shape[0]):
        n = legal_moves(parents[i], moves)
        if status(parents[i], n) != ONGOING:
            continue
        for k in range(n):
            if count >= states.shape[0]:
                return count
            child[:] = parents[i]
            make_move(child, moves[k])
            if in_check(child):
                continue
            n_child = legal_moves(child, ctx.moves[1])
            if status(child, n_child) != ONGOING:
                continue
            static = evaluate_into(child, ctx.features)
            ctx.states[0] = child
            ctx.stats[0] = 0
            settled = qsearch(ctx, 0, -INF, INF, 0, 0)
            if abs(settled - static) > 1e-9:
                continue  # a capture changes it: not a position to judge statically
            states[count] = child
            scores[count] = static
            parent_of[count] = i
            count += 1
    return count


def children(records: np.ndarray, limit: int) -> np.ndarray:
    """Up to ``limit`` settled children of the records' positions as records, labelled
    with the hand evaluation (``result`` 0: no game decides them); each keeps its
    parent's game number, so a held-out game holds out its children too."""
    parents = states_of(records)
    ctx = SearchContext(tt_bits=10)
    states = np.zeros((limit, STATE_SIZE), dtype=np.uint64)
    scores = np.zeros(limit)
    parent_of = np.zeros(limit, dtype=np.int64)
    n = _children(parents, ctx.arrays, states, scores, parent_of)
    from engine.learn.players import GameRecord

    rows = pack_record(GameRecord(states[:n], scores[:n], 0.5, 0), 0)
    rows["result"] = 0
    rows["game"] = records["game"][parent_of[:n]]
    return rows.astype(RECORD)
