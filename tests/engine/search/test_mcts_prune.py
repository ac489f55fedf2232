"""``mcts prune=true``: the parameter reaches the searches that score the tree's nodes, and
the pruned searches still find the mates and winning captures of the tactics suite.

The pruning itself (check extension, principal-variation search, null move, late-move
reductions) is tested on the alpha-beta kernel in ``test_alphabeta_pruning.py``.
"""

from __future__ import annotations

import pytest

from engine.search.registry import validate_params
from engine.search.tactics import Tactic, found, search_fresh
from tests.engine.search.test_alphabeta_pruning import MIDDLEGAME
from tests.engine.search.test_tactics_suite import BUDGET, SEED, TACTICS

#: Every fifth position of the suite (mates in one and two and captures among them), at
#: the full suite's budget and seed: enough to catch a pruning that loses tactics, at a
#: fifth of the full suite's cost (the full suite runs with the defaults).
SAMPLE = TACTICS[::5]


def test_prune_is_off_by_default_in_both_games() -> None:
    assert validate_params("mcts", {}, "chess")["prune"] is False
    assert validate_params("mcts", {}, "knight")["prune"] is False


def test_prune_changes_the_tree_the_search_grows() -> None:
    """The same seed and budget, only the node searches differ. The first scoring of a
    node's children is two plies deep, where little of the pruning applies (the first 300
    iterations here come out the same); the deeper ``rescore`` searches of the nodes the
    search returns to differ, and with them where the visits go. Were the parameter lost
    on its way to the kernel, the two trees would be identical."""
    plain = search_fresh(MIDDLEGAME, "mcts", {"prune": False}, iterations=1000, seed=1)
    pruned = search_fresh(MIDDLEGAME, "mcts", {"prune": True}, iterations=1000, seed=1)
    again = search_fresh(MIDDLEGAME, "mcts", {"prune": True}, iterations=1000, seed=1)
    visits = [(m.move, m.visits) for m in pruned.moves]
    assert visits == [(m.move, m.visits) for m in again.moves]  # deterministic
    assert visits != [(m.move, m.visits) for m in plain.moves]


@pytest.mark.parametrize("tactic", SAMPLE, ids=lambda t: t.id)
def test_pruned_mcts_finds_the_answer_at_a_fixed_budget(tactic: Tactic) -> None:
    info = search_fresh(tactic.fen, "mcts", {"prune": True}, iterations=BUDGET, seed=SEED)
    top = [(m.move, m.visits, round(m.q, 3), m.proof) for m in info.moves[:3]]
    assert found(tactic, info), (tactic.id, sorted(tactic.bm), info.bestmove, top)
