"""The searches' evaluation cache (``evaluate_cached``): a remembered score must be the
score the evaluation gives, in either game, and a search must find the same with a
cache that is empty or already full — the cache may only make it cheaper."""

from __future__ import annotations

import numpy as np
import pytest

from engine.core.state import (
    CHESS,
    EVAL,
    GAME,
    HALFMOVE,
    HASH,
    KNIGHT_CHESS,
    LEARNED_EVAL,
    NNUE_EVAL,
    PLY,
    SCALED_EVAL,
)
from engine.eval.evaluate import evaluate, evaluate_into
from engine.eval.nnue import AVAILABLE as NNUE_AVAILABLE
from engine.rules.convert import state_from_fen
from engine.search.parts.alphabeta import INF, NODES, SearchContext, evaluate_cached, qsearch
from tests.positions import random_positions


def cached(ctx: SearchContext, s: np.ndarray) -> float:
    """``evaluate_cached`` of ``s`` as a search's root: the cache reads the line's row."""
    arrays = ctx.arrays
    arrays.states[0] = s
    return float(evaluate_cached(arrays, 0))


@pytest.mark.parametrize("game", ["chess", "knight"])
def test_a_cached_score_is_the_evaluation(game: str) -> None:
    ctx = SearchContext(tt_bits=8)
    states = random_positions(game, 400, seed=11)
    first = [cached(ctx, s) for s in states]
    assert np.count_nonzero(ctx.eval_keys) > 0  # the scores were kept
    again = [cached(ctx, s) for s in states]  # many now from the cache
    expected = [evaluate(s) for s in states]
    assert first == expected
    assert again == expected


def test_the_two_games_do_not_share_an_entry() -> None:
    # The same placement of knights in both games has the same Zobrist key but is scored
    # by two evaluations: the knight-chess key is salted.
    knight = state_from_fen("8/1n6/2n5/8/3N4/8/8/8 w - - 0 1", "knight")
    chess_twin = knight.copy()
    chess_twin[GAME] = CHESS
    assert knight[GAME] == KNIGHT_CHESS and knight[HASH] == chess_twin[HASH]
    assert evaluate(knight) != evaluate(chess_twin)  # the case is what it says
    ctx = SearchContext(tt_bits=8)
    assert cached(ctx, chess_twin) == evaluate(chess_twin)
    assert cached(ctx, knight) == evaluate(knight)
    assert cached(ctx, chess_twin) == evaluate(chess_twin)


def test_a_knight_chess_placement_is_scored_at_its_own_ply() -> None:
    # Knight chess's phase runs down with the ply count to the 200-ply rule: the same
    # knights at ply 10 and at ply 150 score differently, under the same Zobrist key.
    early = state_from_fen("8/1n6/2n5/8/3N4/8/6N1/8 w - - 0 6", "knight")
    late = early.copy()
    late[PLY] = 150
    assert early[HASH] == late[HASH]
    assert evaluate(early) != evaluate(late)  # the case is what it says
    ctx = SearchContext(tt_bits=8)
    for s in (early, late, early, late):
        assert cached(ctx, s) == evaluate(s)


def test_the_scaled_and_learned_evaluations_are_not_cached() -> None:
    # The scaled evaluation reads the fifty-move clock, which the key leaves out: two
    # states one clock apart must each get their own score.
    ctx = SearchContext(tt_bits=8)
    fresh = state_from_fen("6k1/8/8/8/8/8/5PPP/3R2K1 w - - 0 40")
    fresh[EVAL] = SCALED_EVAL
    stale = fresh.copy()
    stale[HALFMOVE] = 90
    scratch = np.zeros_like(ctx.features)
    assert evaluate_into(fresh, scratch) != evaluate_into(stale, scratch)
    for s in (fresh, stale, fresh, stale):
        assert cached(ctx, s) == evaluate_into(s, scratch)
    learned = state_from_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    learned[EVAL] = LEARNED_EVAL
    assert cached(ctx, learned) == evaluate_into(learned, scratch)
    assert not np.any(ctx.eval_keys)  # nothing was stored


@pytest.mark.parametrize(
    "fen",
    [
        "r2q1rk1/pp2bppp/2n1pn2/3p4/3P4/2NBPN2/PP3PPP/R2Q1RK1 w - - 0 10",
        "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    ],
)
def test_a_full_cache_changes_neither_the_score_nor_the_nodes(fen: str) -> None:
    s = state_from_fen(fen)

    def search(ctx: SearchContext) -> tuple[float, int]:
        ctx.reset_counters()
        ctx.states[0] = s
        return qsearch(ctx.arrays, 0, -INF, INF, 0, 0), int(ctx.stats[NODES])

    ctx = SearchContext(tt_bits=8)
    cold = search(ctx)
    warm = search(ctx)  # every position it meets is in the cache now
    assert cold == warm
    assert cold[1] > 1


@pytest.mark.skipif(not NNUE_AVAILABLE, reason="no NNUE network is loaded")
def test_the_nnue_is_cached_apart_from_the_hand_evaluation() -> None:
    # The same position under both evaluations: one entry each (the NNUE's key is salted).
    ctx = SearchContext(tt_bits=8)
    hand = state_from_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    nnue = hand.copy()
    nnue[EVAL] = NNUE_EVAL
    assert evaluate(hand) != evaluate(nnue)  # the case is what it says
    for s in (hand, nnue, hand, nnue):
        assert cached(ctx, s) == evaluate(s)
    assert np.count_nonzero(ctx.eval_keys) == 2
