"""bfms with ``leaf=quiescence`` (each new child scored by a quiescence search) and
``solver=true`` (MCTS-Solver proofs: a proven node is neither expanded nor re-scored)."""

from __future__ import annotations

import pytest

from engine.eval.evaluate import WIN
from engine.rules.convert import move_to_uci
from engine.search.algorithm import PROVEN_WIN
from engine.search.controller import SearchController
from engine.search.tree import NONE, PROVEN, ROOT, TERMINAL

# Stockfish: Qxd5?? loses the queen to cxd5 (the pawn is defended).
DEFENDED_PAWN = "4k3/8/2p5/3p4/8/8/8/3QK3 w - - 0 1"
BACK_RANK_MATE = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"  # Ra8#
QUIET_MATE_IN_TWO = "k7/8/2K5/8/8/8/8/1R6 w - - 0 1"  # Kc7 Ka7 Ra1#
HANGING_QUEEN = "rnb1kbnr/pppp1ppp/8/4p1q1/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 1"  # Bxg5


def first_values(leaf: str) -> dict[str, float]:
    controller = SearchController("chess", DEFENDED_PAWN, algorithm="bfms", params={"leaf": leaf})
    controller.search(iterations=1)
    tree = controller.workers[0].tree
    return {move_to_uci(int(tree.move[k])): float(tree.value[k]) for k in tree.children(ROOT)}


def test_a_capture_that_loses_the_queen_is_scored_as_lost_by_the_quiescence_leaf() -> None:
    static, quiescence = first_values("static"), first_values("quiescence")
    assert static["d1d5"] > 0.2  # a pawn up, statically
    # ... and the queen lost to cxd5: king against king and pawn
    assert quiescence["d1d5"] < -0.3 and quiescence["d1d5"] < static["d1d5"] - 0.5
    assert quiescence["d1d2"] == pytest.approx(static["d1d2"], abs=0.2)


def test_bfms_with_quiescence_takes_a_hanging_queen() -> None:
    info = SearchController(
        "chess", HANGING_QUEEN, algorithm="bfms", params={"leaf": "quiescence"}, seed=1
    ).search(iterations=300)
    assert info.bestmove == "c1g5"


def test_a_proven_root_ends_the_search_without_expanding_anything_more() -> None:
    controller = SearchController(
        "chess", BACK_RANK_MATE, algorithm="bfms", params={"solver": True}, seed=1
    )
    info = controller.search(iterations=500)
    assert info.stop_reason == "proven" and info.iterations == 1
    tree = controller.workers[0].tree
    assert all(tree.first_child[k] == NONE for k in tree.children(ROOT))  # nothing below
    assert info.bestmove == "a1a8" and info.moves[0].proof == PROVEN_WIN


@pytest.mark.parametrize("leaf", ["static", "quiescence"])
def test_proofs_follow_the_rules_and_proven_nodes_are_not_expanded_again(leaf: str) -> None:
    controller = SearchController(
        "chess", QUIET_MATE_IN_TWO, algorithm="bfms", params={"leaf": leaf, "solver": True}
    )
    info = controller.search(iterations=3000)
    assert info.moves[0].proof == PROVEN_WIN and info.stop_reason == "proven"
    tree = controller.workers[0].tree
    for node in range(tree.used):
        if not tree.flags[node] & PROVEN:
            continue
        kids = tree.children(node)
        if tree.flags[node] & TERMINAL:
            assert not kids
            continue
        proven = [int(tree.outcome[k]) for k in kids if tree.flags[k] & PROVEN]
        assert 1 in proven or (len(proven) == len(kids) and tree.outcome[node] == -max(proven))
        assert tree.value[node] == -max(float(tree.value[k]) for k in kids)
    assert abs(info.moves[0].eval) > WIN / 2
