"""A tree that reaches its node budget is folded to make room and the search goes on.

Every tree algorithm grows its tree each iteration; at the budget its least visited
branches are folded into their nodes (:func:`engine.search.tree.fold`), which keep their
own numbers, so a long analysis keeps searching — and keeps its answer — instead of
ending with ``stop_reason="node budget"``. Only a budget too small to fold stops it.
"""

from __future__ import annotations

import chess
import numpy as np
import pytest

from engine.search.codes import RECYCLED
from engine.search.controller import SearchController
from engine.search.tree import NONE, PARTIAL, ROOT, fold, fold_cut

ITALIAN = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
#: Bxg5 takes a queen for nothing.
HANGING_QUEEN = "rnb1kbnr/pppp1ppp/8/4p1q1/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 1"
#: Ra8#.
BACK_RANK_MATE = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"

#: Per algorithm: a node budget it fills within a few hundred iterations, and the
#: iterations that fill it several times over.
FILLS = {
    "uct": (1_000, 6_000),
    "uct-minimax": (1_000, 600),
    "bfms": (1_000, 600),
    "mcts": (1_000, 600),
}


def full_search(algorithm: str, fen: str = ITALIAN, seed: int = 1) -> SearchController:
    budget, iterations = FILLS[algorithm]
    controller = SearchController("chess", fen, algorithm=algorithm, node_budget=budget, seed=seed)
    controller.search(iterations=iterations)
    return controller


def consistent(tree) -> None:
    """Every node below the root is listed by its parent once, a level below it."""
    seen = 0
    stack = [ROOT]
    while stack:
        node = stack.pop()
        seen += 1
        for child in tree.children(node):
            assert tree.parent[child] == node and tree.depth[child] == tree.depth[node] + 1
            stack.append(child)
    assert seen == tree.used
    assert tree.meta[3] == int(tree.depth[: tree.used].sum())  # the depth sum, recounted


@pytest.mark.parametrize("algorithm", list(FILLS))
def test_a_search_past_its_node_budget_goes_on_and_says_the_tree_is_folded(
    algorithm: str,
) -> None:
    budget, iterations = FILLS[algorithm]
    controller = full_search(algorithm)
    info = controller.info()
    worker = controller.workers[0]
    assert info.stop_reason == "iterations" and info.iterations == iterations
    assert worker.folds >= 2, "the tree reached its budget more than once"
    assert worker.tree.used <= budget and worker.tree.visits[ROOT] == iterations
    assert info.extra["full"] == "recycling"
    assert chess.Move.from_uci(info.bestmove) in chess.Board(ITALIAN).legal_moves
    consistent(worker.tree)
    legal = chess.Board(ITALIAN).legal_moves.count()
    assert len(worker.tree.children(ROOT)) == len(info.moves) == legal  # never folded away


@pytest.mark.parametrize("algorithm", list(FILLS))
def test_iterations_keep_rising_in_a_full_tree_until_the_clock_stops_it(algorithm: str) -> None:
    budget, _ = FILLS[algorithm]
    controller = SearchController("chess", ITALIAN, algorithm=algorithm, node_budget=budget)
    counts = []
    controller.start(movetime_ms=3_000)
    while controller.running:
        counts.append(controller.wait(0.5).iterations)
    info = controller.info()
    assert info.stop_reason == "time" and controller.workers[0].folds >= 1
    assert counts == sorted(counts) and info.iterations > counts[0]


@pytest.mark.parametrize(
    ("algorithm", "fen", "budget", "best"),
    [
        # random playouts cannot tell a free queen from a quiet move in 6,000 iterations,
        # a mate in one they can; it takes most visits, so the tree grows slowly
        ("uct", BACK_RANK_MATE, 200, "a1a8"),
        ("uct-minimax", HANGING_QUEEN, 1_000, "c1g5"),
        ("bfms", HANGING_QUEEN, 1_000, "c1g5"),
        ("mcts", HANGING_QUEEN, 1_000, "c1g5"),
    ],
)
def test_a_clear_best_move_stays_best_through_the_folds(
    algorithm: str, fen: str, budget: int, best: str
) -> None:
    iterations = FILLS[algorithm][1]
    controller = SearchController("chess", fen, algorithm=algorithm, node_budget=budget, seed=1)
    info = controller.search(iterations=iterations)
    assert controller.workers[0].folds >= 1 and info.iterations == iterations
    assert info.bestmove == best


def test_a_fold_keeps_the_visited_top_and_each_folded_node_s_own_numbers() -> None:
    controller = SearchController("chess", ITALIAN, algorithm="mcts", node_budget=50_000)
    controller.search(iterations=300)
    tree = controller.workers[0].tree
    used = tree.used
    keep = used // 3
    cut = fold_cut(tree.arrays, keep)
    assert cut > 0
    before = {
        name: getattr(tree, name)[:used].copy()
        for name in ("parent", "move", "visits", "value_sum", "value", "eval", "flags")
    }
    kept = fold(tree.arrays, cut)
    assert kept == tree.used <= keep
    consistent(tree)
    ids: dict[tuple[int, ...], int] = {(): ROOT}  # a node's moves from the root name it

    def line(old: int) -> tuple[int, ...]:
        moves = []
        while old != ROOT:
            moves.append(int(before["move"][old]))
            old = int(before["parent"][old])
        return tuple(reversed(moves))

    for node in range(1, tree.used):  # new ids, found by their moves from the root
        ids[line_of(tree, node)] = node
    for old in range(used):
        new = ids.get(line(old))
        if new is None:  # folded away: an ancestor had fewer visits than the cut
            assert any(before["visits"][a] < cut for a in ancestors(before["parent"], old))
            continue
        for name in ("visits", "value_sum", "value", "eval"):
            assert getattr(tree, name)[new] == before[name][old]
        if old != ROOT and before["visits"][old] < cut:  # folded: a leaf again
            assert tree.first_child[new] == NONE and not tree.flags[new] & PARTIAL


def line_of(tree, node: int) -> tuple[int, ...]:
    return tuple(int(tree.move[n]) for n in tree.path(node))


def ancestors(parent: np.ndarray, node: int) -> list[int]:
    out = []
    while parent[node] != NONE:
        node = int(parent[node])
        out.append(node)
    return out


def test_a_fold_that_cannot_keep_the_root_s_children_is_refused() -> None:
    controller = SearchController("chess", ITALIAN, algorithm="uct", node_budget=50_000)
    controller.search(iterations=400)
    tree = controller.workers[0].tree
    assert fold_cut(tree.arrays, len(tree.children(ROOT))) == -1
    assert fold_cut(tree.arrays, tree.used) == 0  # everything fits: nothing to fold


def test_a_step_at_the_budget_folds_the_tree_and_the_next_step_goes_on() -> None:
    """The step view compares a node's numbers before and after its iteration by id, so the
    fold is a step of its own, with no iteration (code RECYCLED)."""
    controller = SearchController("chess", ITALIAN, algorithm="uct", node_budget=1_000, seed=1)
    controller.search(iterations=999)
    worker = controller.workers[0]
    while worker.tree.used < worker.tree.budget:
        assert controller.step().iterations == 1
    folded = controller.step()
    assert folded.code == RECYCLED and folded.iterations == 0 and worker.folds == 1
    assert worker.tree.used <= worker.tree.budget // 2
    assert controller.step().iterations == 1
    assert controller.info().stop_reason != "node budget"


@pytest.mark.parametrize(("algorithm", "budget"), [("uct", 30), ("bfms", 400), ("mcts", 100)])
def test_a_budget_too_small_to_fold_still_ends_the_search_cleanly(
    algorithm: str, budget: int
) -> None:
    """uct's start position has 20 moves, more than half of 30 nodes; bfms needs room for
    a whole child list (256 nodes), which half of 400 is not; mcts cannot even expand its
    root in 100."""
    controller = SearchController("chess", algorithm=algorithm, node_budget=budget, seed=1)
    info = controller.search(iterations=100_000)
    assert info.stop_reason == "node budget" and controller.workers[0].folds == 0
    assert info.nodes <= budget
