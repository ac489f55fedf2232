"""Each algorithm finds a mate in one and takes a hanging queen within a small budget (seeded)."""

from __future__ import annotations

import pytest

from engine.search.algorithm import ChildStats
from engine.search.controller import SearchController
from engine.search.registry import get_algorithm

SCHOLARS_MATE = "r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 2 4"  # Qxf7#
BACK_RANK_MATE = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"  # Ra8#
HANGING_QUEEN = "rnb1kbnr/pppp1ppp/8/4p1q1/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 1"  # Bxg5
LAST_KNIGHT = "8/8/8/3n4/8/4N3/8/N7 w - - 0 1"  # Nxd5 takes Black's last knight

BUDGETS = {"uct": 3000, "uct-minimax": 1500, "bfms": 1500, "alphabeta": 50_000}


@pytest.mark.parametrize("algorithm", list(BUDGETS))
@pytest.mark.parametrize(("fen", "mate"), [(SCHOLARS_MATE, "h5f7"), (BACK_RANK_MATE, "a1a8")])
def test_every_algorithm_finds_mate_in_one(algorithm: str, fen: str, mate: str) -> None:
    for seed in (1, 2):
        info = SearchController("chess", fen, algorithm=algorithm, seed=seed).search(
            iterations=BUDGETS[algorithm]
        )
        assert info.bestmove == mate, (seed, info.moves[:3])


@pytest.mark.parametrize(
    ("algorithm", "params", "iterations"),
    [
        # Uniform random playouts barely notice material in chess (most 200-ply random
        # games are capped draws); capture-first playouts trade it off and see the queen.
        ("uct", {"policy": "capture_first"}, 20_000),
        ("uct-minimax", {}, 1500),
        ("bfms", {}, 1500),
        ("alphabeta", {}, 50_000),
    ],
)
def test_every_algorithm_takes_a_hanging_queen(
    algorithm: str, params: dict, iterations: int
) -> None:
    for seed in (1, 2):
        controller = SearchController(
            "chess", HANGING_QUEEN, algorithm=algorithm, params=params, seed=seed
        )
        assert controller.search(iterations=iterations).bestmove == "c1g5"


@pytest.mark.parametrize("algorithm", list(BUDGETS))
def test_every_algorithm_takes_the_last_knight_in_knight_chess(algorithm: str) -> None:
    info = SearchController("knight", LAST_KNIGHT, algorithm=algorithm, seed=3).search(
        iterations=min(BUDGETS[algorithm], 500)
    )
    assert info.bestmove == "e3d5"


MATE_IN_TWO = "k7/8/2K5/8/8/8/8/1R6 w - - 0 1"  # 1. Kc7! Ka7 2. Ra1# (checked by brute force)


@pytest.mark.parametrize(
    ("algorithm", "params", "iterations"),
    [
        ("alphabeta", {}, 100_000),
        ("bfms", {}, 2000),
        ("uct", {}, 10_000),
        # (uct-minimax is left out: in a won ending every depth-3 leaf search scores a win
        # by sign, and even scaled rewards average the mate away among near-equal lines.)
    ],
)
def test_mate_in_two_with_a_quiet_first_move(algorithm: str, params: dict, iterations: int) -> None:
    info = SearchController(
        "chess", MATE_IN_TWO, algorithm=algorithm, params=params, seed=1
    ).search(iterations=iterations)
    assert info.bestmove == "c6c7"
    assert info.pv[:3] == ("c6c7", "a8a7", "b1a1")


@pytest.mark.parametrize("algorithm", ["alphabeta", "bfms"])
def test_minimax_algorithms_score_a_forced_mate_as_win_minus_ten_per_ply(algorithm: str) -> None:
    info = SearchController("chess", MATE_IN_TWO, algorithm=algorithm, seed=1).search(
        iterations=100_000 if algorithm == "alphabeta" else 2000
    )
    assert info.moves[0].eval == pytest.approx(10000 - 10 * 3)  # mate on the third ply


def test_final_choice_breaks_equal_visits_by_q_then_by_evaluation() -> None:
    uct = get_algorithm("uct")
    params = uct.validate({}, "chess")

    def child(move: int, visits: int, value_sum: float, ev: float) -> ChildStats:
        return ChildStats(move, visits, value_sum, 0.0, ev, False, 0)

    kids = [child(1, 1, 0.0, -0.4), child(2, 1, 0.0, 0.05), child(3, 1, 0.0, -0.3)]
    best = max(kids, key=lambda c: uct.final_rank(c, params, 1))
    assert best.move == 2  # equal visits and Q: the better evaluation
    kids.append(child(4, 1, 0.5, -0.9))
    best = max(kids, key=lambda c: uct.final_rank(c, params, 1))
    assert best.move == 4  # equal visits: the better Q first
    kids.append(child(5, 2, 0.0, -1.0))
    assert max(kids, key=lambda c: uct.final_rank(c, params, 1)).move == 5  # visits rule
