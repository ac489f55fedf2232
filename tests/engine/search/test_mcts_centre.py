"""``mcts``'s ``centre``: selection reads each value against the root's own value, so the
moves of a won position keep their differences. The arithmetic is the logistic scale
shifted by the root's centipawns; the kernel and the table (the step view, the node card)
must compare the same numbers."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from engine.eval.evaluate import SQUASH_CP, squash
from engine.search.algorithms.mcts import MCTS
from engine.search.controller import SearchController
from engine.search.parts.select import CENTRE_LIMIT, centre_odds, centred, select_puct
from engine.search.tree import NONE, ROOT

#: White a bishop up: every reasonable move reads as an expected score near 0.9.
PIECE_UP = "4k3/8/3p4/8/8/8/3PPP2/2B1K3 w - - 0 1"


def expected(cp: float) -> float:
    return 0.5 * (1.0 + squash(cp))


@pytest.mark.parametrize(
    ("cp", "root_cp"), [(0.0, 0.0), (350.0, 500.0), (900.0, 500.0), (-200.0, 300.0)]
)
def test_centred_is_the_logistic_scale_shifted_by_the_roots_centipawns(
    cp: float, root_cp: float
) -> None:
    odds = 10.0 ** (root_cp / SQUASH_CP)
    assert centred(expected(cp), odds) == pytest.approx(expected(cp - root_cp), abs=1e-12)


def test_centred_with_odds_one_changes_nothing_and_keeps_the_order() -> None:
    qs = np.linspace(0.0, 1.0, 21)
    assert [centred(q, 1.0) for q in qs] == list(qs)
    shifted = [centred(q, 30.0) for q in qs]
    assert shifted == sorted(shifted) and shifted[0] == 0.0 and shifted[-1] == 1.0


def search(params: dict, iterations: int = 400) -> SearchController:
    controller = SearchController("chess", PIECE_UP, algorithm="mcts", params=params, seed=3)
    controller.search(iterations=iterations)
    return controller


def test_the_odds_are_the_roots_value_for_the_chooser_and_flip_each_ply() -> None:
    controller = search({"centre": 1.0})
    tree = controller.workers[0].tree
    value = min(CENTRE_LIMIT, max(-CENTRE_LIMIT, -float(tree.value[ROOT])))
    assert value > 0.5  # a piece up, for White, who chooses at the root
    odds = (1.0 + value) / (1.0 - value)
    child = tree.children(ROOT)[0]
    assert centre_odds(tree.arrays, ROOT, 1.0) == pytest.approx(odds)
    assert centre_odds(tree.arrays, child, 1.0) == pytest.approx(1.0 / odds)
    assert centre_odds(tree.arrays, ROOT, 0.5) == pytest.approx(math.sqrt(odds))
    assert centre_odds(tree.arrays, ROOT, 0.0) == 1.0


@pytest.mark.parametrize("centre", [0.0, 0.5, 1.0])
def test_the_table_ranks_the_children_as_the_kernel_selects(centre: float) -> None:
    """The next selection at the root and at its most visited child is the child whose
    score, as the table computes it, is the highest."""
    controller = search({"centre": centre})
    worker = controller.workers[0]
    tree, params = worker.tree, worker.params
    node = ROOT
    for _ in range(2):
        kids = tree.children(node)
        scores = {
            k: MCTS.selection_terms(worker.child_stats(k), int(tree.visits[node]), params).score
            for k in kids
        }
        chosen = select_puct(
            tree.arrays, node, params["c_puct"], params["alpha"], params["fpu"], True, centre
        )
        assert chosen != NONE and scores[chosen] == pytest.approx(max(scores.values()))
        plain = {
            k: MCTS.selection_terms(
                replace(worker.child_stats(k), odds=1.0), int(tree.visits[node]), params
            ).score
            for k in kids
        }
        shift = max(abs(scores[k] - plain[k]) for k in kids)
        assert shift > 0.01 if centre else shift == 0.0
        node = max(kids, key=lambda k: int(tree.visits[k]))


def test_centring_changes_where_the_visits_go_in_a_won_position() -> None:
    def visits(centre: float) -> list[int]:
        tree = search({"centre": centre}, 1500).workers[0].tree
        return [int(tree.visits[k]) for k in tree.children(ROOT)]

    assert visits(0.0) != visits(1.0)
