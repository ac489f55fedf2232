"""The pruned alpha-beta search (``stats[PRUNED]``) that ``mcts prune=true`` scores nodes with.

Check extensions must let a search of a given depth see a mate a plain one of that depth
misses; null-move pruning and late-move reductions must cost fewer nodes for the same
move; the pass itself must be a well-formed position (its Zobrist key as if computed
afresh), never tried where zugzwang lurks (only king and pawns) or twice in a row.
"""

from __future__ import annotations

import numpy as np

from engine.core.chess_core import make_null_move
from engine.core.state import EP, HALFMOVE, HASH, NO_SQUARE, TURN
from engine.core.zobrist import full_hash
from engine.eval.evaluate import WIN
from engine.rules.convert import move_to_uci, state_from_fen
from engine.search.alphabeta_core import (
    NODES,
    PRUNED,
    SearchContext,
    after_pass,
    has_pieces,
    minimax_value,
)

# Qd8+ Bxd8 Re8#: White mates in three plies, the first a check.
QUEEN_SACRIFICE_MATE = "r1b2k1r/ppp1bppp/8/1B1Q4/5q2/2P5/PPP2PPP/R3R1K1 w - - 1 0"
# A quiet middlegame (Queen's Gambit Declined), no capture worth anything at once.
MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R1BQKB1R w KQ - 1 8"
# White wins the black queen: Nxd5 is the only capture that does not lose material.
FREE_QUEEN = "rnb1kbnr/pppp1ppp/8/3q4/8/2N5/PPPP1PPP/R1BQKBNR w KQkq - 0 4"


def context(pruned: bool) -> SearchContext:
    ctx = SearchContext(tt_bits=14)
    ctx.stats[PRUNED] = int(pruned)
    return ctx


def search(ctx: SearchContext, fen: str, depth: int) -> tuple[float, str, int]:
    """Score, best move and nodes of a full-window search ending in quiescence."""
    s = state_from_fen(fen, "chess")
    ctx.reset_counters()
    score = minimax_value(ctx.arrays, s, depth, True, 0)
    best = move_to_uci(int(ctx.pv[0, 0])) if ctx.pv_len[0] else ""
    return score, best, int(ctx.stats[NODES])


def test_a_check_extension_sees_a_mate_a_plain_search_of_the_same_depth_misses() -> None:
    plain, _, _ = search(context(False), QUEEN_SACRIFICE_MATE, 2)
    assert plain < WIN / 2
    pruned, best, _ = search(context(True), QUEEN_SACRIFICE_MATE, 2)
    assert pruned == WIN - 30
    assert best == "d5d8"


def test_pruning_searches_a_quiet_middlegame_in_far_fewer_nodes() -> None:
    _, _, plain_nodes = search(context(False), MIDDLEGAME, 4)
    _, _, pruned_nodes = search(context(True), MIDDLEGAME, 4)
    assert pruned_nodes < 0.6 * plain_nodes


def test_pruning_keeps_a_clear_best_move_in_fewer_nodes() -> None:
    _, plain_best, plain_nodes = search(context(False), FREE_QUEEN, 4)
    _, pruned_best, pruned_nodes = search(context(True), FREE_QUEEN, 4)
    assert plain_best == pruned_best == "c3d5"
    assert pruned_nodes < plain_nodes


def test_a_pass_is_a_position_of_its_own_with_its_key_computed_as_afresh() -> None:
    # After 1.e4 the en-passant square e3 is set; a pass clears it and hands the move back.
    s = state_from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", "chess")
    s[HALFMOVE] = 7
    passed = s.copy()
    make_null_move(passed)
    assert passed[TURN] == 0 and passed[EP] == NO_SQUARE and passed[HALFMOVE] == 0
    assert passed[HASH] == full_hash(passed)
    assert passed[HASH] != s[HASH]


def test_no_pass_where_zugzwang_lurks_or_right_after_another() -> None:
    pawns_only = state_from_fen("8/8/3k4/3p4/3P4/3K4/8/8 w - - 0 1", "chess")
    assert not has_pieces(pawns_only)
    with_knight = state_from_fen("8/8/3k4/3p4/3P4/3K1N2/8/8 w - - 0 1", "chess")
    assert has_pieces(with_knight)
    states = np.zeros((3, with_knight.shape[0]), dtype=np.uint64)
    states[0] = with_knight
    states[1] = with_knight
    make_null_move(states[1])
    assert after_pass(states, 1)
    assert not after_pass(states, 0)
