"""The prior's killer and history terms (``prior_killer``, ``prior_history``): alpha-beta's
move-ordering tables, filled by the tree. Whenever a node's children get their scores, the
best of them is a refutation: counted in the history table and, when quiet, made the
killer at its depth. A quiet move's prior gain then gets ``prior_killer`` centipawns if it
is a killer at its depth, and ``prior_history`` times its count over its side's largest."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.core.state import MAX_MOVES, WHITE
from engine.rules.convert import move_to_uci, state_from_fen, uci_to_move
from engine.search.algorithms.mcts import K_HISTORY, K_KILLER, MCTS
from engine.search.controller import SearchController
from engine.search.parts.expand import expand_with_priors
from engine.search.parts.implicit import best_evaluated
from engine.search.parts.prior import (
    SQUARE_PAIRS,
    age_order,
    new_order_tables,
    note_refutation,
    order_bonus,
)
from engine.search.tree import EVALUATED, NUM_LEGAL, PROVEN, ROOT, Tree, add_child

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
#: White can take on e5 (Nxe5) or play quietly; a capture never gets the bonus.
CAPTURE = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
TEMP = 100.0


def priors(fen: str, order: tuple, killer: float, history: float) -> dict[str, float]:
    """The root's priors (softmax at 100 cp, no uniform share) with these tables."""
    s = state_from_fen(fen, "chess")
    tree = Tree(capacity=512)
    moves = np.zeros(MAX_MOVES, dtype=np.int32)
    expand_with_priors(
        tree.arrays, ROOT, s, moves, s.copy(), moves.copy(), TEMP, False, 0.0,
        order, killer, history,
    )  # fmt: skip
    return {move_to_uci(int(tree.move[k])): float(tree.prior[k]) for k in tree.children(ROOT)}


def move(fen: str, uci: str) -> int:
    return uci_to_move(state_from_fen(fen, "chess"), uci)


def test_off_by_default_in_both_games_and_in_range() -> None:
    for game in ("chess", "knight"):
        full = MCTS.validate({}, game)
        assert full["prior_killer"] == 0.0 and full["prior_history"] == 0.0
    kp = MCTS.kernel_params(MCTS.validate({"prior_killer": 80, "prior_history": 40}, "chess"))
    assert (kp[K_KILLER], kp[K_HISTORY]) == (80, 40)
    with pytest.raises(ValueError, match="prior_history"):
        MCTS.validate({"prior_history": -5}, "chess")


def test_a_killer_at_its_depth_gets_the_bonus_and_no_other_move_does() -> None:
    order = new_order_tables()
    plain = priors(START, order, 100.0, 0.0)  # empty tables: no bonus at all
    assert plain == priors(START, order, 0.0, 0.0)
    order[1][1, 0] = move(START, "g1f3")  # a killer at depth 1 (the root's children)
    order[1][2, 0] = move(START, "b1c3")  # a killer one ply deeper: not these moves'
    boosted = priors(START, order, 100.0, 0.0)
    # Nf3 and Nc3 have the same gain without the tables: now e^(100 / 100) times the share
    assert plain["g1f3"] == pytest.approx(plain["b1c3"], rel=1e-6)
    assert boosted["g1f3"] / boosted["b1c3"] == pytest.approx(math.e, rel=1e-5)
    # the others keep their ratios to each other
    assert boosted["e2e4"] / boosted["d2d4"] == pytest.approx(plain["e2e4"] / plain["d2d4"])


def test_history_adds_its_share_of_the_bonus() -> None:
    order = new_order_tables()
    history = order[0]
    history[WHITE * SQUARE_PAIRS + (move(START, "g1f3") & 4095)] = 4.0
    history[WHITE * SQUARE_PAIRS + (move(START, "d2d4") & 4095)] = 2.0
    history[2 * SQUARE_PAIRS + WHITE] = 4.0  # White's largest count
    p = priors(START, order, 0.0, 100.0)
    assert p["g1f3"] / p["b1c3"] == pytest.approx(math.e, rel=1e-5)  # 4/4 of 100 cp
    assert p["g1f3"] / p["g1h3"] == pytest.approx(math.e, rel=1e-5)
    ratio = p["d2d4"] / p["e2e4"]  # d4's 50 cp, against e4's same gain without them
    plain = priors(START, new_order_tables(), 0.0, 100.0)
    assert ratio == pytest.approx(math.exp(0.5) * plain["d2d4"] / plain["e2e4"], rel=1e-5)


def test_captures_and_promotions_get_no_bonus() -> None:
    order = new_order_tables()
    capture = move(CAPTURE, "f3e5")
    order[1][1, 0] = capture
    order[0][WHITE * SQUARE_PAIRS + (capture & 4095)] = 1.0
    order[0][2 * SQUARE_PAIRS + WHITE] = 1.0
    assert order_bonus(order, WHITE, 1, capture, 100.0, 100.0) == 0.0
    assert priors(CAPTURE, order, 100.0, 100.0) == priors(CAPTURE, new_order_tables(), 0, 0)
    promotion = move("8/P6k/8/8/8/8/8/K7 w - - 0 1", "a7a8q")
    order[1][1, 0] = promotion
    assert order_bonus(order, WHITE, 1, promotion, 100.0, 0.0) == 0.0


def root_with(fen: str, ucis: list[str]) -> Tree:
    tree = Tree(capacity=64)
    s = state_from_fen(fen, "chess")
    for uci in ucis:
        add_child(tree.arrays, ROOT, uci_to_move(s, uci))
    tree.arrays[NUM_LEGAL][ROOT] = len(ucis)
    return tree


def test_the_best_scored_child_is_the_refutation_counted() -> None:
    tree = root_with(START, ["e2e4", "g1f3", "d2d4", "b1c3"])
    e4, nf3, d4, nc3 = tree.children(ROOT)
    for node, value in ((e4, 0.2), (nf3, 0.5), (d4, 0.1)):  # Nc3 not scored yet
        tree.flags[node] |= EVALUATED
        tree.value[node] = value
    assert best_evaluated(tree.arrays, ROOT) == nf3
    tree.value[nc3] = 0.9  # a value, but not evaluated: it does not count
    assert best_evaluated(tree.arrays, ROOT) == nf3
    tree.flags[nf3] |= PROVEN  # proven lost for White: left out, as implicit minimax does
    tree.outcome[nf3] = -1
    assert best_evaluated(tree.arrays, ROOT) == e4

    order = new_order_tables()
    history, killers = order
    note_refutation(order, tree.arrays, d4, WHITE)
    note_refutation(order, tree.arrays, e4, WHITE)
    note_refutation(order, tree.arrays, e4, WHITE)
    m_e4, m_d4 = int(tree.move[e4]), int(tree.move[d4])
    assert history[WHITE * SQUARE_PAIRS + (m_e4 & 4095)] == 2.0
    assert history[WHITE * SQUARE_PAIRS + (m_d4 & 4095)] == 1.0
    assert history[2 * SQUARE_PAIRS + WHITE] == 2.0
    assert history[SQUARE_PAIRS : 2 * SQUARE_PAIRS].sum() == 0.0  # Black's untouched
    assert list(killers[1]) == [m_e4, m_d4]  # the newest first, no duplicate
    assert (killers[0] == -1).all() and (killers[2] == -1).all()


def test_a_capture_refutes_without_being_counted() -> None:
    tree = root_with(CAPTURE, ["f3e5"])
    order = new_order_tables()
    note_refutation(order, tree.arrays, tree.children(ROOT)[0], WHITE)
    assert not order[0].any() and (order[1] == -1).all()


def test_ageing_halves_the_counts_and_moves_killers_up_with_the_root() -> None:
    order = new_order_tables()
    history, killers = order
    history[7] = 6.0
    killers[3] = (11, 12)
    killers[-1] = (13, 14)
    age_order(order, 1)
    assert history[7] == 3.0
    assert list(killers[2]) == [11, 12] and list(killers[3]) == [-1, -1]
    assert list(killers[-2]) == [13, 14] and list(killers[-1]) == [-1, -1]


@pytest.mark.parametrize("expand", ["lazy", "evaluate"])
def test_a_search_fills_the_tables_and_is_deterministic(expand: str) -> None:
    params = {"expand": expand, "prior_killer": 60, "prior_history": 60, "root_depth": 0}

    def run() -> tuple[SearchController, tuple[np.ndarray, np.ndarray]]:
        controller = SearchController("chess", CAPTURE, algorithm="mcts", params=params, seed=3)
        controller.search(iterations=400)
        return controller, controller.workers[0].extra.order

    first, (history, killers) = run()
    assert history.sum() > 0 and (killers[1:4] >= 0).any()
    second, (history2, killers2) = run()
    assert np.array_equal(history, history2) and np.array_equal(killers, killers2)
    used = first.workers[0].tree.used
    assert np.array_equal(first.workers[0].tree.visits[:used], second.workers[0].tree.visits[:used])
    # played on: the counts halve and the tree's tables follow the root
    before = history.copy()
    first.play(first.info().moves[0].move)
    assert np.allclose(first.workers[0].extra.order[0], before / 2)


def test_off_the_tables_stay_empty() -> None:
    controller = SearchController(
        "chess", CAPTURE, algorithm="mcts", params={"expand": "lazy"}, seed=3
    )
    controller.search(iterations=200)
    history, killers = controller.workers[0].extra.order
    assert not history.any() and (killers == -1).all()


def test_the_step_view_names_the_bonus_where_children_are_created() -> None:
    """A lazy expansion's note says the quiet moves' priors carry the tables' bonus (and
    says nothing of them while they are off)."""
    for params, words in (
        ({"prior_killer": 50, "prior_history": 25}, "+50 cp for a killer at this depth"),
        ({}, None),
    ):
        controller = SearchController(
            "chess", CAPTURE, algorithm="mcts", params={"expand": "lazy", **params}, seed=3
        )
        notes = []
        for _ in range(12):
            levels = controller.step().selection
            notes += [level["note"] for level in levels if level.get("rule") == "expand"]
        assert notes
        for note in notes:
            assert note.startswith("all ") and "children created with their priors" in note
            if words:
                assert words in note and "up to +25 cp by history" in note
            else:
                assert "cp" not in note
