"""``rescore``: a node the search keeps coming back to has its untried children (scored
when it was expanded, never chosen since) scored again by searches one ply deeper, at
``RESCORE_VISITS`` visits and at each ``RESCORE_GROWTH`` times as many. Each value is
what the search it names returns, and nothing changes before the first threshold."""

from __future__ import annotations

import numpy as np
import pytest

from engine.explain.step import step_trace
from engine.rules.convert import state_from_fen
from engine.search.algorithms.mcts import MCTS
from engine.search.algorithms.mcts.depth import (
    FULL_TREE_PLIES,
    RESCORE_GROWTH,
    RESCORE_VISITS,
    untried,
    visit_plies,
)
from engine.search.codes import T_SIM_DEPTH
from engine.search.controller import SearchController
from engine.search.tree import EVALUATED, NONE, PARTIAL, PROVEN, ROOT, TERMINAL
from tests.engine.search.test_mcts_deeper import ITALIAN, exact, position, reused_tree, search

#: root_depth 1: the root's children are scored by the quiescence search alone (0 plies),
#: so a rescore's one more ply is a 1-ply search; c_root 0 and the chess c_puct keep
#: the root narrow, so most of its children are still untried after a few iterations.
#: ``rescore`` is off (the chess default is 2) until a test switches it on.
BASE = {
    "expand": "evaluate",
    "alpha": 1.0,
    "root_depth": 1,
    "tt": False,
    "rescore": 0,
    "c_root": 0.0,
}


def kernel(**params: object) -> np.record:
    return MCTS.kernel_params(MCTS.validate(dict(params), "chess"))


def test_the_plies_added_grow_by_one_at_each_threshold_up_to_rescore() -> None:
    kp = kernel(rescore=2)
    first, second = RESCORE_VISITS, RESCORE_VISITS * RESCORE_GROWTH
    assert [visit_plies(kp, v) for v in (0, 1, first - 1)] == [0, 0, 0]
    assert [visit_plies(kp, v) for v in (first, second - 1)] == [1, 1]
    assert [visit_plies(kp, v) for v in (second, 100 * second)] == [2, 2]
    assert visit_plies(kernel(rescore=0), 10**6) == 0


def untried_at_root(tree) -> list[int]:
    return [k for k in tree.children(ROOT) if tree.visits[k] == 0 and tree.first_child[k] == NONE]


def test_before_the_first_threshold_the_tree_is_the_same_as_without_rescore() -> None:
    """The root reaches the threshold's visits at the start of the next iteration: until
    then, the trees with and without ``rescore`` agree value for value."""
    plain = search(ITALIAN, {**BASE, "rescore": 0}, RESCORE_VISITS)[0].workers[0].tree
    tried = search(ITALIAN, {**BASE, "rescore": 1}, RESCORE_VISITS)[0].workers[0].tree
    assert plain.used == tried.used
    assert np.array_equal(plain.value[: plain.used], tried.value[: tried.used])
    assert np.array_equal(plain.visits[: plain.used], tried.visits[: tried.used])


def test_at_the_threshold_the_untried_children_are_scored_one_ply_deeper() -> None:
    """The next iteration finds the root at the threshold and scores its untried children
    again by 1-ply searches (before: the quiescence search alone): a principal-variation
    search over them, against the best value of the children already tried — each
    untried child's score is no lower than its true 1-ply score, exact where it beats
    that best. The children tried keep the values their subtrees backed up."""
    controller, _ = search(ITALIAN, {**BASE, "rescore": 1}, RESCORE_VISITS)
    tree = controller.workers[0].tree
    root_state = state_from_fen(ITALIAN, "chess")
    kids = untried_at_root(tree)
    assert len(kids) > 10
    before = {k: float(tree.eval[k]) for k in kids}
    for k in kids:  # scored at the root's expansion by the quiescence search alone
        assert before[k] >= -exact(position(tree, root_state, k), 0) - 1e-6
    tried = {k: float(tree.value[k]) for k in tree.children(ROOT) if k not in kids}
    sim = step_trace(controller).simulation  # the iteration at the threshold, traced
    assert sim["rescored"] and sim["depth"] == 1 and "scored again" in sim["note"]
    assert all(float(tree.value[k]) == v for k, v in tried.items())  # their subtrees' values
    truth = {k: -exact(position(tree, root_state, k), 1) for k in kids}
    assert any(abs(truth[k] - before[k]) > 1e-3 for k in kids)  # the deeper search differs
    best_tried = max(tried.values())
    for k in kids:
        assert tree.flags[k] & EVALUATED
        assert float(tree.eval[k]) >= truth[k] - 1e-6
        if truth[k] > best_tried and truth[k] == max(truth.values()):
            assert float(tree.eval[k]) == pytest.approx(truth[k], abs=1e-6)
    assert not tree.flags[ROOT] & PARTIAL
    assert sum(float(tree.prior[k]) for k in tree.children(ROOT)) == pytest.approx(1.0)


def kept_tree(rescore: int):
    """A 400-iteration ``root_depth = 3`` search of the Italian game with ``refresh``, its
    principal variation's first two moves played (the new root's untried children lose
    their scores), then ``rescore`` switched on (or not) for the kept tree: the root is
    past its first threshold. Returns the controller and the children cleared."""
    controller = reused_tree(refresh=True)
    worker = controller.workers[0]
    worker.kparams.rescore = rescore
    tree = worker.tree
    visits = int(tree.visits[ROOT])
    assert RESCORE_VISITS < visits < RESCORE_VISITS * RESCORE_GROWTH
    assert tree.flags[ROOT] & PARTIAL
    cleared = [k for k in untried_at_root(tree) if not tree.flags[k] & EVALUATED]
    assert len(cleared) > 1
    controller.search(iterations=1)  # the first iteration scores them again
    return controller, cleared


def test_children_first_scored_after_the_threshold_get_the_extra_plies_at_once() -> None:
    """A node's visits set the depth its children are scored at whenever that happens: a
    kept tree's root, far past its threshold, has its cleared children scored by the
    root's 2 plies and one more (that scoring is not a rescore: the node is not at a
    threshold). Each score is a principal-variation search's: no lower than the child's
    true 3-ply score (without ``rescore``: its 2-ply score); the iteration reports the
    depth it scored them at."""
    controller, cleared = kept_tree(rescore=1)
    plain, same = kept_tree(rescore=0)
    assert same == cleared
    tree, other = controller.workers[0].tree, plain.workers[0].tree
    root_state = state_from_fen(controller.board.fen(), "chess")
    truth = {k: -exact(position(tree, root_state, k), 3) for k in cleared}
    for k in cleared:
        assert float(tree.eval[k]) >= truth[k] - 1e-6
        assert float(other.eval[k]) >= -exact(position(tree, root_state, k), 2) - 1e-6
    assert controller.workers[0].info[T_SIM_DEPTH] == 3  # what the iteration reports
    assert plain.workers[0].info[T_SIM_DEPTH] == 2


def test_a_full_tree_s_leaf_searched_again_goes_deeper_than_its_rescored_first_score() -> None:
    """A full tree with ``rescore``: a child scored with its parent's rescore plies (at
    its parent's expansion past the threshold, or rescored) and visited while the tree
    has no room for its expansion is searched again deeper than that score — its parent's
    plies and one more a visit, up to ``FULL_TREE_PLIES`` — never at the depth it already
    had or shallower below that cap. (The depth is the one the kernel passed to the
    search; the scores themselves are not compared with a fresh search: these 2–4-ply
    searches share the kernel's transposition table.)"""
    params = {**BASE, "root_depth": 0, "rescore": 2}
    controller = SearchController(
        "chess", ITALIAN, algorithm="mcts", params=params, seed=1, node_budget=300
    )
    tree = controller.workers[0].tree
    scored_at: dict[int, int] = {}  # each untried child: the depth of its latest scoring
    searched_again = with_parent_plies = 0
    for _ in range(200):
        sim = step_trace(controller).simulation
        leaf = sim["leaf"]["node"]
        if sim["expanded"]:  # the children scored now (all, or the untried ones again)
            scored_at.update(
                {k: sim["depth"] for k in tree.children(leaf) if untried(tree.arrays, k)}
            )
            continue
        if leaf not in scored_at or sim["cached"] or tree.flags[leaf] & (TERMINAL | PROVEN):
            continue
        assert tree.first_child[leaf] == NONE  # not expanded yet: its score searched again
        assert sim["depth"] >= min(scored_at[leaf] + 1, FULL_TREE_PLIES)
        with_parent_plies += sim["depth"] > int(tree.visits[leaf])  # visits now: this one too
        scored_at[leaf] = sim["depth"]
        searched_again += 1
    assert searched_again > 5 and with_parent_plies > 0


def test_rescore_keeps_the_known_answers() -> None:
    from tests.engine.search.test_mcts_search import HANGING_QUEEN, QUIET_MATE_IN_TWO

    params = {"rescore": 2}
    assert search(HANGING_QUEEN, params, 600)[1].bestmove == "c1g5"
    assert search(QUIET_MATE_IN_TWO, params, 3000)[1].bestmove == "c6c7"
