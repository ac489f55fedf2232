"""The searches with ``eval=nnue``: every accumulator an alpha-beta context updates along
its line equals the one summed afresh, its evaluations equal the fresh ones bit for bit,
and searches run."""

from __future__ import annotations

import numpy as np
import pytest

from engine.core.games import legal_moves, make_move, status
from engine.core.state import EVAL, MAX_MOVES, NNUE_EVAL, ONGOING
from engine.eval.nnue import AVAILABLE, BIAS, BOARDS, FT, nnue_fresh, refresh_with
from engine.rules.convert import state_from_fen
from engine.search.parts.alphabeta import SearchContext, evaluate_cached

pytestmark = pytest.mark.skipif(not AVAILABLE, reason="no NNUE network is loaded")

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def test_a_contexts_incremental_evaluations_equal_fresh_ones_along_random_lines() -> None:
    rng = np.random.default_rng(2)
    ctx = SearchContext(tt_bits=10)
    arrays = ctx.arrays
    moves = np.zeros(MAX_MOVES, dtype=np.int32)
    root = state_from_fen(START, "chess")
    root[EVAL] = NNUE_EVAL
    fresh = np.empty_like(arrays.acc[0])
    compared = rows = 0
    for _ in range(30):  # thirty searches' worth of lines, each from a new root
        arrays.states[0] = root
        ply = 0
        for _ in range(60):
            s = arrays.states[ply]
            n = legal_moves(s, moves)
            if status(s, n) != ONGOING or ply >= 40 or rng.random() < 0.2:
                ply = int(rng.integers(0, ply + 1))  # back up the line
                continue
            arrays.states[ply + 1] = s
            make_move(arrays.states[ply + 1], int(moves[rng.integers(n)]))
            ply += 1
            if rng.random() < 0.7:
                # Exactly equal, though another kernel computes each: the sums are
                # integer ones. The row itself is compared whenever it was made.
                assert evaluate_cached(arrays, ply) == nnue_fresh(arrays.states[ply])
                s = arrays.states[ply]
                if np.array_equal(arrays.acc_boards[ply], s[:BOARDS]):
                    refresh_with(s, fresh, FT, BIAS)
                    assert np.array_equal(arrays.acc[ply], fresh)
                    rows += 1
                compared += 1
        root = arrays.states[ply].copy()
    assert compared > 500 and rows > 100


@pytest.mark.parametrize("algorithm", ["alphabeta", "mcts", "bfms", "uct-minimax"])
def test_every_evaluating_search_runs_with_the_network(algorithm: str) -> None:
    from engine.search.controller import SearchController

    controller = SearchController(
        "chess", algorithm=algorithm, params={"eval": "nnue"}, seed=1, tree_size=0
    )
    try:
        info = controller.search(iterations=300)
    finally:
        controller.close()
    assert info.bestmove
