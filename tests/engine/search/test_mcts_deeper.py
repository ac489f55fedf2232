"""``mcts``'s ways of searching deeper: an expansion that scores every child at once
(``expand=evaluate``, a principal-variation search over the children), the depth that flows
down from the root (``root_depth``), the reused tree's leaves scored again (``refresh``) and
a full tree's leaves scored again, one ply deeper, at each visit. Each keeps the known
answers, and each value in the tree is what the search it names returns."""

from __future__ import annotations

import re

import numpy as np
import pytest

from engine.core.games import make_move
from engine.core.state import MAX_MOVES
from engine.eval.evaluate import PLY_PENALTY, WIN
from engine.explain.step import step_trace
from engine.rules.convert import move_to_uci, state_from_fen
from engine.search.algorithm import PROVEN_LOSS, PROVEN_WIN
from engine.search.algorithms.mcts.depth import FULL_TREE_PLIES
from engine.search.controller import SearchController
from engine.search.parts.alphabeta import QCHECKS, QPRUNE, SearchContext
from engine.search.parts.implicit import implicit_value
from engine.search.parts.leaf import LeafCache, leaf_score
from engine.search.tree import EVALUATED, NONE, PARTIAL, PROVEN, ROOT, TERMINAL
from tests.engine.search.test_mcts_search import (
    HANGING_QUEEN,
    PINNED_QUEEN,
    QUIET_MATE_IN_TWO,
    SCHOLARS_DEFENCE,
    SCHOLARS_MATE,
)

MODES = [
    {"expand": "evaluate", "alpha": 1.0},
    {"expand": "evaluate", "alpha": 1.0, "root_depth": 3},
]
RESEARCH_NOTE = re.compile(r"visit (\d+) of a leaf not yet expanded, its (\d+)\w\w scoring")
ITALIAN = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"


def search(fen: str | None, params: dict, iterations: int, moves: tuple[str, ...] = ()):
    """``params`` on top of the defaults, but with ``root_depth = 0`` unless they name it
    (the chess default is 2): each test names the depths it checks."""
    params = {"root_depth": 0, **params}
    controller = SearchController(
        "chess", fen, moves=moves, algorithm="mcts", params=params, seed=1
    )
    return controller, controller.search(iterations=iterations)


def root_visits(fen: str, params: dict, iterations: int = 300) -> list[int]:
    """The visits of the root's children after a search of ``fen`` with ``params``: what
    an exploration weight changes."""
    controller, _ = search(fen, params, iterations)
    tree = controller.workers[0].tree
    return [int(tree.visits[k]) for k in tree.children(ROOT)]


def exact(state: np.ndarray, depth: int, qchecks: int = 2, qprune: bool = True) -> float:
    """The leaf search's own score of ``state`` for its side to move, full window, no table
    (with the chess defaults' quiet checks and exchange pruning unless told)."""
    ctx = SearchContext(tt_bits=12)
    ctx.stats[QCHECKS] = qchecks
    ctx.stats[QPRUNE] = qprune
    cache = LeafCache(1)
    score, _ = leaf_score(ctx.arrays, state, True, depth, cache.keys, cache.scores, False, 1)
    return min(1.0, max(-1.0, score))


def position(tree, root_state: np.ndarray, node: int) -> np.ndarray:
    moves = []
    while node != ROOT:
        moves.append(int(tree.move[node]))
        node = int(tree.parent[node])
    s = root_state.copy()
    for m in reversed(moves):
        make_move(s, m)
    return s


@pytest.mark.parametrize("params", MODES)
@pytest.mark.parametrize(("fen", "answer"), [(HANGING_QUEEN, "c1g5"), (PINNED_QUEEN, "c3d5")])
def test_winning_captures_are_taken(params: dict, fen: str, answer: str) -> None:
    assert search(fen, params, 600)[1].bestmove == answer


@pytest.mark.parametrize("params", MODES)
def test_mates_are_proven_and_the_scholars_mate_defended(params: dict) -> None:
    for fen, mate in ((SCHOLARS_MATE, "h5f7"), (QUIET_MATE_IN_TWO, "c6c7")):
        info = search(fen, params, 3000)[1]
        assert info.bestmove == mate and info.moves[0].proof == PROVEN_WIN
    assert search(None, params, 600, SCHOLARS_DEFENCE)[1].bestmove == "f6h5"


@pytest.mark.parametrize(("root_depth", "depth"), [(0, 0), (2, 1)])
def test_an_evaluating_expansion_scores_the_best_child_exactly_and_bounds_the_rest(
    root_depth: int, depth: int
) -> None:
    params = {"expand": "evaluate", "root_depth": root_depth, "tt": False}
    controller, _ = search(ITALIAN, params, 2)  # the root's evaluation, then its expansion
    tree = controller.workers[0].tree
    root_state = state_from_fen(ITALIAN, "chess")
    kids = tree.children(ROOT)
    assert len(kids) == 33 and all(tree.flags[k] & EVALUATED for k in kids)
    truth = {k: -exact(position(tree, root_state, k), depth) for k in kids}
    best = max(truth.values())
    assert float(tree.value[ROOT]) == pytest.approx(-best, abs=1e-6)
    for k in kids:  # a move shown worse than the best keeps an upper bound on its score
        assert float(tree.value[k]) >= truth[k] - 1e-6
        if truth[k] == best:
            assert float(tree.value[k]) == pytest.approx(best, abs=1e-6)
    assert sum(float(tree.prior[k]) for k in kids) == pytest.approx(1.0)
    top = max(kids, key=lambda k: tree.prior[k])
    assert float(tree.value[top]) == pytest.approx(best, abs=1e-6)  # the prior follows scores


def assert_scored_as_pvs(tree, root_state: np.ndarray, node: int, depth: int) -> None:
    """``node``'s children were scored by searches of ``depth`` plies (``eval``, the
    score they got then): the best exactly, the others no lower than their true score
    (a null window's upper bound)."""
    kids = tree.children(node)
    assert kids and all(tree.flags[k] & EVALUATED for k in kids)
    truth = {k: -exact(position(tree, root_state, k), depth) for k in kids}
    best = max(truth.values())
    for k in kids:
        assert float(tree.eval[k]) >= truth[k] - 1e-6
        if truth[k] == best:
            assert float(tree.eval[k]) == pytest.approx(best, abs=1e-6)


def test_with_root_depth_the_search_depth_flows_down_the_tree() -> None:
    """``root_depth = 3``: the root's children are scored by searches of 2 plies, their
    children by searches of 1, and from the third ply on by the quiescence search alone."""
    # c_root = 0: a narrow root, so 30 iterations reach the fourth ply
    params = {"expand": "evaluate", "alpha": 1.0, "root_depth": 3, "tt": False, "c_root": 0.0}
    controller, _ = search(ITALIAN, params, 30)
    tree = controller.workers[0].tree
    root_state = state_from_fen(ITALIAN, "chess")
    assert_scored_as_pvs(tree, root_state, ROOT, 2)
    seen = set()
    for node in range(1, tree.used):
        if tree.first_child[node] != NONE:
            ply = int(tree.depth[node]) + 1
            assert_scored_as_pvs(tree, root_state, node, max(0, 3 - ply))
            seen.add(ply)
    assert {2, 3, 4} <= seen  # children at plies 2 and 3 (depths 1 and 0), and beyond


def test_with_root_depth_a_lazy_leaf_is_searched_deeper_near_the_root() -> None:
    params = {"expand": "lazy", "root_depth": 2, "tt": False}
    controller, _ = search(ITALIAN, params, 60)
    tree = controller.workers[0].tree
    root_state = state_from_fen(ITALIAN, "chess")
    depths = set()
    for node in range(1, tree.used):
        if tree.flags[node] & EVALUATED and not tree.flags[node] & TERMINAL:
            depth = max(0, 2 - int(tree.depth[node]))
            s = position(tree, root_state, node)
            assert float(tree.eval[node]) == pytest.approx(-exact(s, depth), abs=1e-6)
            depths.add(depth)
    assert depths == {0, 1}


def reused_tree(refresh: bool):
    """A 400-iteration ``root_depth = 3`` search of the Italian game, then its principal
    variation's first two moves played (the tree kept): the new root's children were
    scored at the third ply, by the quiescence search alone (``rescore`` off: it would
    have scored the well-visited ones again, deeper)."""
    params = {"expand": "evaluate", "alpha": 1.0, "root_depth": 3, "tt": False, "rescore": 0}
    controller, info = search(ITALIAN, {**params, "refresh": refresh}, 400)
    for uci in info.pv[:2]:
        controller.play(uci)
    return controller


def test_refresh_clears_the_reused_leaves_near_the_root_and_scores_them_again() -> None:
    """``refresh``: after the two moves, every childless unproven node on the new root's
    first two plies has lost its score and its parent is ``PARTIAL``; the first iteration
    scores the root's children again by 2-ply searches (each no lower than the exact
    score, a null window's bound, and exact where it beats every other child)."""
    controller = reused_tree(refresh=True)
    tree = controller.workers[0].tree
    near = list(tree.children(ROOT))
    near += [g for k in near for g in tree.children(k)]
    cleared = [n for n in near if tree.first_child[n] == NONE and not tree.flags[n] & PROVEN]
    assert cleared
    for node in cleared:
        assert not tree.flags[node] & EVALUATED
        assert tree.flags[int(tree.parent[node])] & PARTIAL
    kept = [n for n in near if tree.first_child[n] != NONE]
    assert all(tree.flags[n] & EVALUATED for n in kept)
    controller.search(iterations=1)
    root_state = state_from_fen(controller.board.fen(), "chess")
    again = [k for k in tree.children(ROOT) if k in cleared]
    assert again and all(tree.flags[k] & EVALUATED for k in again)
    truth = {k: -exact(position(tree, root_state, k), 2) for k in again}
    others = [float(tree.value[k]) for k in tree.children(ROOT) if k not in again]
    for k in again:
        assert float(tree.eval[k]) >= truth[k] - 1e-6
    top = max(again, key=truth.get)
    if truth[top] > max(others, default=-2.0):
        assert float(tree.eval[top]) == pytest.approx(truth[top], abs=1e-6)


def test_a_partly_scored_node_whose_replies_no_longer_refute_it_has_the_rest_scored() -> None:
    """A node ``refresh`` left partly scored keeps its other replies unscored only while
    its best scored reply refutes the move into it; once that reply's value falls (a
    deeper search found it fails), the next descent through the node scores the rest,
    and the step view says the scoring resumed."""
    controller = reused_tree(refresh=True)
    tree = controller.workers[0].tree
    controller.step()  # the root's own cleared children scored again
    partial = [
        k for k in tree.children(ROOT)
        if tree.flags[k] & PARTIAL and not tree.flags[k] & PROVEN
    ]  # fmt: skip
    assert partial, "no root move was left partly scored"
    node = partial[0]
    scored = [k for k in tree.children(node) if tree.flags[k] & EVALUATED]
    for k in scored:  # every reply scored so far turns out bad for its mover
        tree.value[k] = -0.9
    implicit_value(tree.arrays, node)
    for k in tree.children(ROOT):  # and the search is steered to the node
        tree.prior[k] = 1.0 if k == node else 0.0
    sim = step_trace(controller).simulation
    assert all(tree.flags[k] & EVALUATED for k in tree.children(node))
    assert not tree.flags[node] & PARTIAL
    assert sim["expanded"] and sim["note"].startswith("scoring resumed")


def test_without_refresh_the_reused_tree_keeps_its_scores() -> None:
    tree = reused_tree(refresh=False).workers[0].tree
    assert all(tree.flags[k] & EVALUATED for k in tree.children(ROOT))
    assert not tree.flags[ROOT] & PARTIAL


@pytest.mark.parametrize(
    "params", [{"expand": "lazy", "alpha": 0.3}, {"expand": "evaluate", "alpha": 1.0}]
)
def test_a_full_tree_searches_on_by_scoring_its_leaves_deeper(params: dict) -> None:
    """At a node budget too small to fold the tree (half of 400 nodes is no room for a
    child list) ``mcts`` neither stops nor grows: every iteration the limit asked for
    runs, and a leaf visited again is searched deeper (up to FULL_TREE_PLIES), each
    evaluation the search of that depth."""
    budget = 400
    controller = SearchController(
        "chess", ITALIAN, algorithm="mcts",
        params={**params, "tt": False, "root_depth": 0, "rescore": 0},
        seed=1, node_budget=budget,
    )  # fmt: skip
    info = controller.search(iterations=4000)
    worker = controller.workers[0]
    tree = worker.tree
    assert info.iterations == 4000 and info.stop_reason != "node budget"
    assert worker.full and budget - MAX_MOVES <= tree.used <= budget
    assert info.bestmove is not None
    root_state = state_from_fen(ITALIAN, "chess")
    deeper = [
        n for n in range(1, tree.used)
        if tree.first_child[n] == NONE and tree.visits[n] >= 2
        and not tree.flags[n] & (TERMINAL | PROVEN)
    ]  # fmt: skip
    assert deeper, "no leaf was visited twice in the full tree"
    for node in deeper[:8]:
        scored_unvisited = 1 if params["expand"] == "evaluate" else 0
        plies = min(int(tree.visits[node]) - 1 + scored_unvisited, FULL_TREE_PLIES)
        s = position(tree, root_state, node)
        assert float(tree.eval[node]) == pytest.approx(-exact(s, plies), abs=1e-6)
    # step mode says why a leaf is searched again, which scoring it is and how deep: with
    # expand = evaluate a child's first visit is already its second scoring (its parent's
    # expansion scored it first), so it must not read like a leaf seen for the first time
    for _ in range(300):
        sim = step_trace(controller).simulation
        match = RESEARCH_NOTE.match(sim["note"])
        if match:
            break
    else:
        pytest.fail("300 steps in a full tree and none re-scored a leaf")
    visit, scoring = int(match[1]), int(match[2])
    scored_unvisited = 1 if params["expand"] == "evaluate" else 0
    assert "the tree is full" in sim["note"] and scoring == visit + scored_unvisited
    first = "its parent's expansion scored it first" in sim["note"]
    assert first == (scored_unvisited == 1 and visit == 1)
    assert sim["depth"] == min(scoring - 1, FULL_TREE_PLIES) and tree.used <= budget


def test_a_budget_too_small_to_expand_the_root_still_ends_the_search() -> None:
    controller = SearchController("chess", ITALIAN, algorithm="mcts", node_budget=100)
    info = controller.search(iterations=50)
    assert info.stop_reason == "node budget"


def test_a_stalemate_scored_at_expansion_is_a_draw_once_the_search_reaches_it() -> None:
    """``expand=evaluate`` scores children without generating their moves, so a child
    that stalemates without check is first scored like any position a queen up; the
    search looks at its moves when it reaches it, and from then on it is a proven draw."""
    controller = SearchController(
        "chess", "k7/8/8/8/8/1Q6/1K6/8 w - - 0 1", algorithm="mcts", seed=1,
        params={"prior": "none", "c_puct": 10.0},
    )  # fmt: skip
    controller.search(iterations=300)
    tree = controller.workers[0].tree
    (stalemate,) = [k for k in tree.children(ROOT) if move_to_uci(int(tree.move[k])) == "b3b6"]
    assert tree.visits[stalemate] > 0
    assert tree.flags[stalemate] & TERMINAL and tree.flags[stalemate] & PROVEN
    assert int(tree.outcome[stalemate]) == 0 and float(tree.value[stalemate]) == 0.0


def test_a_mate_the_expansions_search_finds_proves_the_child_at_once() -> None:
    """Rxa5 wins a rook but leaves the first rank to …Qe1#. The evaluating expansion
    searches the capture first (the prior ranks it first), exactly, and its quiescence
    search's quiet checks find the mate: the move is proven lost for White then and there
    (mate in one for Black), without a visit; the other moves keep ordinary scores."""
    back_rank = "6k1/5pp1/7p/r3q3/8/8/5PPP/R5K1 w - - 0 1"
    controller, _ = search(back_rank, {"expand": "evaluate", "alpha": 1.0}, 2)
    tree = controller.workers[0].tree
    proven = {}
    for k in tree.children(ROOT):
        move = move_to_uci(int(tree.move[k]))
        if tree.flags[k] & PROVEN:
            proven[move] = k
        else:
            assert -1.0 <= float(tree.value[k]) <= 1.0
    assert list(proven) == ["a1a5"]
    capture = proven["a1a5"]
    assert tree.visits[capture] == 0 and int(tree.outcome[capture]) == -1
    assert float(tree.value[capture]) == pytest.approx(-(WIN - PLY_PENALTY * 2))
    info = controller.search(iterations=200)
    assert info.bestmove != "a1a5"
    (row,) = [m for m in info.moves if m.move == "a1a5"]
    assert row.proof == PROVEN_LOSS and row.mate == 2
