"""Mate scores through the alpha-beta transposition table when searches start below the root.

``mcts`` and ``uct-minimax`` score a tree node p plies below the root with an alpha-beta
search whose mate scores count from the tree's root (``ply_offset = p``), and every such
search shares one table. The table must store a mate as its distance from the position
itself, or a search at another offset reads it back a ply or more too short or too long
(a mate in 3 shown as a mate in 2).
"""

from __future__ import annotations

import numpy as np

from engine.core.games import make_move
from engine.eval.evaluate import WIN
from engine.rules.convert import state_from_fen, uci_to_move
from engine.search.parts.alphabeta import SearchContext, minimax_value

# Qd8+ Bxd8 Re8#: White mates in three plies.
QUEEN_SACRIFICE_MATE = "r1b2k1r/ppp1bppp/8/1B1Q4/5q2/2P5/PPP2PPP/R3R1K1 w - - 1 0"


def search(ctx: SearchContext, s: np.ndarray, depth: int, ply_offset: int) -> float:
    """The full-window search ``uct-minimax`` scores a leaf with (quiescence at the end)."""
    return minimax_value(ctx.arrays, s, depth, True, ply_offset)


def after_qd8(s: np.ndarray) -> np.ndarray:
    child = s.copy()
    make_move(child, uci_to_move(s, "d5d8"))
    return child


def test_a_mate_stored_by_a_search_from_the_root_reads_right_one_ply_below_it() -> None:
    root = state_from_fen(QUEEN_SACRIFICE_MATE, "chess")
    fresh = search(SearchContext(tt_bits=12), after_qd8(root), 2, 1)
    assert fresh == -(WIN - 30)  # Black, to move after Qd8+, is mated on ply 3
    ctx = SearchContext(tt_bits=12)
    assert search(ctx, root, 3, 0) == WIN - 30  # fills the table from the root
    assert search(ctx, after_qd8(root), 2, 1) == fresh


def test_a_mate_stored_one_ply_below_the_root_reads_right_from_the_root() -> None:
    root = state_from_fen(QUEEN_SACRIFICE_MATE, "chess")
    ctx = SearchContext(tt_bits=12)
    assert search(ctx, after_qd8(root), 2, 1) == -(WIN - 30)
    assert search(ctx, root, 3, 0) == WIN - 30
