"""``mcts``'s ``c_root``: the exploration weight among the root's moves alone. The kernel
selects with it at the root and with ``c_puct`` below; the root table, the step view and
the node card must show the numbers the kernel compared at each node."""

from __future__ import annotations

import math

import pytest

from engine.explain.nodes import node_details
from engine.explain.step import step_trace
from engine.rules.convert import move_to_uci
from engine.search.algorithms.mcts import MCTS
from engine.search.controller import SearchController
from engine.search.parts.select import select_puct
from engine.search.tree import ROOT

ITALIAN = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
C_PUCT = 0.25  # the chess default


def search(c_root: float, iterations: int = 600) -> SearchController:
    params = {"c_puct": C_PUCT, "c_root": c_root}
    controller = SearchController("chess", ITALIAN, algorithm="mcts", params=params, seed=5)
    controller.search(iterations=iterations)
    return controller


def root_visits(controller: SearchController) -> list[int]:
    tree = controller.workers[0].tree
    return [int(tree.visits[k]) for k in tree.children(ROOT)]


def test_node_params_swap_in_c_root_at_the_root_only() -> None:
    params = MCTS.validate({"c_puct": C_PUCT, "c_root": 2.0}, "chess")
    assert MCTS.node_params(params, True)["c_puct"] == 2.0
    assert MCTS.node_params(params, False)["c_puct"] == C_PUCT
    off = MCTS.validate({"c_puct": C_PUCT, "c_root": 0.0}, "chess")
    assert MCTS.node_params(off, True) == off


def test_c_root_equal_to_c_puct_grows_the_same_tree_as_none() -> None:
    same, off = search(C_PUCT), search(0.0)
    assert root_visits(same) == root_visits(off)
    assert same.workers[0].tree.used == off.workers[0].tree.used


def test_a_larger_c_root_spreads_the_roots_visits() -> None:
    narrow, broad = root_visits(search(0.0)), root_visits(search(4.0))
    assert sum(v > 1 for v in broad) > sum(v > 1 for v in narrow)
    assert max(broad) < max(narrow)


def test_the_kernel_selects_at_the_root_the_move_the_table_ranks_first() -> None:
    """With ``c_root`` far from ``c_puct`` the two weights rank the root's moves apart;
    the kernel's next choice is the root table's best score, and the table's scores are
    the formula with ``c_root``."""
    controller = search(4.0)
    worker = controller.workers[0]
    tree, params = worker.tree, worker.params
    at_root = MCTS.node_params(params, True)
    parent = int(tree.visits[ROOT])
    scores = {
        move_to_uci(int(tree.move[k])): MCTS.selection_terms(
            worker.child_stats(k), parent, at_root
        ).score
        for k in tree.children(ROOT)
    }
    chosen = select_puct(tree.arrays, ROOT, at_root["c_puct"], params["alpha"], params["fpu"], True)
    assert scores[move_to_uci(int(tree.move[chosen]))] == pytest.approx(max(scores.values()))
    table = {m.move: m.score for m in controller.info().moves}
    assert table == pytest.approx(scores)


def test_below_the_root_the_kernel_selects_the_child_the_table_ranks_first() -> None:
    """Two plies down the most visited line, with ``c_puct``: the kernel's next choice is
    the child whose score, as the table computes it, is the highest."""
    controller = search(4.0)
    worker = controller.workers[0]
    tree, params = worker.tree, worker.params
    node = ROOT
    for _ in range(2):
        node = max(tree.children(node), key=lambda k: int(tree.visits[k]))
        kids = tree.children(node)
        scores = {
            k: MCTS.selection_terms(worker.child_stats(k), int(tree.visits[node]), params).score
            for k in kids
        }
        chosen = select_puct(
            tree.arrays, node, params["c_puct"], params["alpha"], params["fpu"], True
        )
        assert chosen in scores and scores[chosen] == pytest.approx(max(scores.values()))


def test_the_step_view_and_the_node_card_read_c_root_at_the_root_and_c_puct_below() -> None:
    controller = search(4.0, 300)
    trace = step_trace(controller)
    levels = [entry for entry in trace.selection if entry.get("children")]
    assert levels and levels[0]["level"] == 0
    for entry in levels[:2]:
        c = 4.0 if entry["level"] == 0 else C_PUCT
        for row in entry["children"]:
            if row["explore"] is None:
                continue
            expected = c * row["prior"] * math.sqrt(entry["visits"]) / (1 + row["visits"])
            assert row["explore"] == pytest.approx(expected)
    tree = controller.workers[0].tree
    child = max(tree.children(ROOT), key=lambda k: int(tree.visits[k]))
    card = node_details(controller, child)
    assert card["selection"]["params"]["c_puct"] == 4.0
    grandchild = max(tree.children(child), key=lambda k: int(tree.visits[k]))
    assert node_details(controller, grandchild)["selection"]["params"]["c_puct"] == C_PUCT
