"""``mcts``'s final choice between a proven draw and a move the search values above it."""

from __future__ import annotations

from engine.search.algorithm import NOT_PROVEN, PROVEN_DRAW, PROVEN_WIN
from engine.search.algorithms.mcts.algorithm import DRAW_MARGIN, MCTS
from engine.search.info import MoveStats


def row(move: str, visits: int, value: float, proof: int = NOT_PROVEN) -> MoveStats:
    return MoveStats(
        move=move, san=move, visits=visits, share=0.0, q=0.5, score=0.0, eval=value, proof=proof
    )


def played(*rows: MoveStats) -> str:
    return MCTS.final_order(list(rows), {})[0].move


def test_a_proven_draw_gives_way_to_a_well_visited_move_valued_above_it() -> None:
    draw = row("g1h1", 900, 0.0, PROVEN_DRAW)
    better = row("d4g1", 450, 0.18)
    order = MCTS.final_order([draw, row("a2a3", 600, -0.1), better], {})
    assert [m.move for m in order] == ["d4g1", "g1h1", "a2a3"]  # the rest keep their order


def test_the_draw_stands_when_nothing_is_clearly_better_or_visited_enough() -> None:
    draw = row("g1h1", 900, 0.0, PROVEN_DRAW)
    assert played(draw, row("d4g1", 449, 0.5)) == "g1h1"  # fewer than half its visits
    assert played(draw, row("d4g1", 900, DRAW_MARGIN)) == "g1h1"  # not above the margin
    assert played(draw, row("d4g1", 900, 0.9, PROVEN_DRAW)) == "g1h1"  # a draw as well


def test_only_a_proven_draw_at_the_top_is_reconsidered() -> None:
    assert played(row("e2e4", 900, 0.0), row("d2d4", 800, 0.6)) == "e2e4"
    win = row("h5f7", 10, 9990.0, PROVEN_WIN)
    assert played(win, row("d2d4", 800, 0.6)) == "h5f7"
