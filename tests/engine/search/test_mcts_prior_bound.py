"""``prior_bound``: an evaluating expansion scores the best child exactly and each other
child with a null window at the best score so far; a child that window only bounded
("no better than the best") reads, as a score, the same as that best, and its prior tied
with it. ``prior_bound`` counts such a child that many centipawns lower in the prior's
softmax. The scores themselves (and so the tree's values) do not change."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.rules.convert import state_from_fen
from engine.search.algorithms.mcts import K_PRIOR_BOUND, MCTS
from engine.search.tree import EVALUATED, ROOT
from tests.engine.search.test_mcts_deeper import ITALIAN, exact, position, search

BASE = {"expand": "evaluate", "leaf_depth": 1, "tt": False, "prior_mix": 0.1}
TEMP = 100.0  # the prior's temperature, centipawns


def expanded(prior_bound: float):
    """The tree after the root's evaluation and its expansion (two iterations)."""
    params = {**BASE, "prior_temp": TEMP, "prior_bound": prior_bound}
    controller, _ = search(ITALIAN, params, 2)
    tree = controller.workers[0].tree
    kids = tree.children(ROOT)
    assert kids and all(tree.flags[k] & EVALUATED for k in kids)
    return tree, kids


def softmax_weights(tree, kids: list[int], mix: float) -> dict[int, float]:
    """Each child's softmax weight, unmixed (the uniform share taken out again)."""
    floor = mix / len(kids)
    return {k: (float(tree.prior[k]) - floor) / (1.0 - mix) for k in kids}


def test_off_by_default_and_in_range() -> None:
    """Off in both games: 150 cp gained on the control set and lost against UCI_Elo 2000
    (docs/results.md)."""
    assert MCTS.validate({}, "chess")["prior_bound"] == 0.0
    assert MCTS.validate({}, "knight")["prior_bound"] == 0.0
    assert MCTS.kernel_params(MCTS.validate({"prior_bound": 150}, "chess"))[K_PRIOR_BOUND] == 150
    with pytest.raises(ValueError, match="prior_bound"):
        MCTS.validate({"prior_bound": -1}, "chess")


@pytest.mark.parametrize("below", [150.0, 400.0])
def test_children_only_bounded_count_lower_in_the_prior_and_nothing_else_changes(
    below: float,
) -> None:
    plain, kids = expanded(0.0)
    lowered, same_kids = expanded(below)
    assert same_kids == kids
    used = plain.used
    assert lowered.used == used
    assert np.array_equal(plain.value[:used], lowered.value[:used])  # the scores as before
    assert np.array_equal(plain.eval[:used], lowered.eval[:used])
    assert sum(float(lowered.prior[k]) for k in kids) == pytest.approx(1.0)
    before = softmax_weights(plain, kids, BASE["prior_mix"])
    after = softmax_weights(lowered, kids, BASE["prior_mix"])
    ratios = {k: after[k] / before[k] for k in kids}
    top = max(ratios.values())
    scaled = {k: r / top for k, r in ratios.items()}
    penalty = math.exp(-below / TEMP)
    # Two kinds of child only: as before, or that many centipawns lower (float32 priors).
    assert all(
        v == pytest.approx(1.0, rel=1e-4) or v == pytest.approx(penalty, rel=1e-4)
        for v in scaled.values()
    )
    bounded = {k for k, v in scaled.items() if v < 0.5 * (1.0 + penalty)}
    exact_ones = set(kids) - bounded
    assert bounded and exact_ones
    # A child whose value lies above its true score holds a bound: the penalty is its.
    root_state = state_from_fen(ITALIAN, "chess")
    truth = {k: -exact(position(plain, root_state, k), 1) for k in kids}
    assert {k for k in kids if float(plain.value[k]) > truth[k] + 1e-6} <= bounded
    # The best move is scored exactly, never only bounded, and keeps the largest prior.
    best = max(truth.values())
    for k in kids:
        if truth[k] == pytest.approx(best, abs=1e-9) and float(plain.value[k]) == pytest.approx(
            best, abs=1e-9
        ):
            assert k in exact_ones
    assert max(kids, key=lambda k: lowered.prior[k]) in exact_ones


def test_without_priors_from_scores_the_parameter_changes_nothing() -> None:
    """``prior = none`` (every move alike) and a lazy expansion ignore it."""
    for extra in ({"prior": "none"}, {"expand": "lazy"}):
        a, kids = expanded_with({**extra, "prior_bound": 0.0})
        b, _ = expanded_with({**extra, "prior_bound": 500.0})
        assert [float(a.prior[k]) for k in kids] == [float(b.prior[k]) for k in kids]


def expanded_with(params: dict):
    controller, _ = search(ITALIAN, {**BASE, **params}, 2)
    tree = controller.workers[0].tree
    return tree, tree.children(ROOT)
