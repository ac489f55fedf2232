"""Score conversion (Q/eval → cp, mate, wdl) and the time plan from the clock."""

from __future__ import annotations

import math

import pytest

from engine.eval.evaluate import WIN, unsquash
from engine.search.info import MoveStats
from engine.uci.score import mate_moves, move_score, q_to_cp, wdl_from_expected
from engine.uci.timeman import Clock, moves_left, plan_clock, plan_movetime


def stats(q: float = 0.5, eval: float = 0.0, bound: str = "exact") -> MoveStats:
    return MoveStats("e2e4", "e4", 10, 1.0, q, 0.0, eval, bound=bound)


@pytest.mark.parametrize(("q", "cp"), [(0.5, 0), (0.64, 100), (0.36, -100), (0.909, 400)])
def test_q_maps_to_centipawns_through_the_evaluation_logistic(q: float, cp: int) -> None:
    assert q_to_cp(q) == pytest.approx(cp, abs=1)


def test_q_to_cp_is_clamped_at_the_ends() -> None:
    assert q_to_cp(1.0) == q_to_cp(0.99999) and 0 < q_to_cp(1.0) <= 3000
    assert q_to_cp(0.0) == -q_to_cp(1.0)


def test_q_based_and_eval_based_scores_agree_on_the_same_expected_score() -> None:
    # eval e is the expected score (1 + e) / 2 under the same logistic
    for e in (-0.8, -0.3, 0.0, 0.28, 0.9):
        by_eval = move_score("alphabeta", stats(eval=e)).cp
        by_q = move_score("uct", stats(q=(1 + e) / 2)).cp
        assert by_eval == pytest.approx(by_q, abs=1)
        assert by_eval == round(unsquash(e))


@pytest.mark.parametrize(("plies", "moves"), [(1, 1), (3, 2), (5, 3)])
def test_mate_scores_become_mate_in_moves(plies: int, moves: int) -> None:
    value = WIN - 10 * plies
    assert mate_moves(value) == moves
    assert mate_moves(-(WIN - 10 * (plies + 1))) == -((plies + 2) // 2)
    score = move_score("bfms", stats(eval=value))
    assert score.mate == moves and score.cp is None and score.uci() == f"mate {moves}"


def test_upper_bounds_are_marked() -> None:
    assert move_score("alphabeta", stats(eval=0.1, bound="upper")).uci().endswith("upperbound")


@pytest.mark.parametrize("q", [0.0, 0.1, 0.37, 0.5, 0.8, 1.0])
def test_wdl_sums_to_1000_and_keeps_the_expected_score(q: float) -> None:
    win, draw, loss = wdl_from_expected(q)
    assert win + draw + loss == 1000 and min(win, draw, loss) >= 0
    assert (win + draw / 2) / 1000 == pytest.approx(q, abs=0.001)


def test_movetime_is_used_exactly() -> None:
    plan = plan_movetime(250)
    assert plan.soft_ms == plan.hard_ms == 250


def test_clock_plan_shares_the_time_over_the_moves_left() -> None:
    plan = plan_clock(Clock(60_000, 0), game="chess", ply=0, overhead_ms=30)
    assert plan.soft_ms == pytest.approx((60_000 - 30) / 45)
    assert plan.soft_ms < plan.hard_ms <= 3 * plan.soft_ms


def test_increment_is_mostly_spent_but_never_more_than_the_cap() -> None:
    plan = plan_clock(Clock(1_000, 2_000), game="chess", ply=40, overhead_ms=0)
    assert plan.soft_ms == pytest.approx(0.4 * 1_000)
    assert plan.hard_ms <= 0.6 * 1_000


def test_knight_chess_knows_exactly_how_many_moves_are_left() -> None:
    assert moves_left("knight", 0, None) == 100
    assert moves_left("knight", 197, None) == 2
    assert moves_left("knight", 199, None) == 1
    last = plan_clock(Clock(5_000), game="knight", ply=199, overhead_ms=0)
    assert last.soft_ms == pytest.approx(4_000) and last.hard_ms == pytest.approx(4_500)


def test_movestogo_is_respected_and_the_last_move_before_control_uses_most_time() -> None:
    plan = plan_clock(Clock(10_000, 0, 1), game="chess", ply=30, overhead_ms=0)
    assert plan.soft_ms == pytest.approx(8_000)
    plan = plan_clock(Clock(10_000, 0, 10), game="chess", ply=30, overhead_ms=0)
    assert plan.soft_ms == pytest.approx(1_000)


def test_plan_never_exceeds_the_time_left() -> None:
    for time_ms in (1, 50, 500, 5_000, 500_000):
        for inc in (0, 100, 10_000):
            plan = plan_clock(Clock(time_ms, inc), game="chess", ply=10, overhead_ms=30)
            assert 0 < plan.soft_ms <= plan.hard_ms
            assert plan.hard_ms <= max(1.0, 0.9 * (time_ms - 30)) or time_ms <= 30
            assert not math.isnan(plan.soft_ms)
