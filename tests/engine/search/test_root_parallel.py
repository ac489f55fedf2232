"""Root parallelism: K independent trees whose root statistics are summed."""

from __future__ import annotations

import pytest

from engine.errors import InvalidParameterError
from engine.rules.convert import move_to_uci
from engine.search.controller import SearchController


@pytest.mark.parametrize("algorithm", ["uct", "uct-minimax", "bfms"])
def test_merged_root_equals_the_sum_of_the_threads_trees(algorithm: str) -> None:
    controller = SearchController("chess", algorithm=algorithm, threads=3, seed=5)
    info = controller.search(iterations=1500)
    assert len(info.thread_stats) == 3
    assert sum(t.iterations for t in info.thread_stats) == 1500
    for row in info.moves:
        per_thread = [m for t in info.thread_stats for m in t.moves if m.move == row.move]
        assert row.visits == sum(m.visits for m in per_thread)
    # ... and equal the sum read straight from the workers' trees.
    total: dict[str, tuple[int, float]] = {}
    for worker in controller.workers:
        for _, child in worker.root_children():
            v, s = total.get(move_to_uci(child.move), (0, 0.0))
            total[move_to_uci(child.move)] = (v + child.visits, s + child.value_sum)
    for row in info.moves:
        visits, value_sum = total[row.move]
        assert row.visits == visits
        if algorithm != "bfms" and visits:  # bfms reads Q from its negamax value instead
            assert row.q == pytest.approx(value_sum / visits)


def test_threads_grow_different_trees_from_one_seed() -> None:
    controller = SearchController("chess", algorithm="uct", threads=2, seed=9)
    controller.search(iterations=800)
    a, b = (w.tree for w in controller.workers)
    assert [int(x) for x in a.move[:50]] != [int(x) for x in b.move[:50]]


def test_several_threads_choose_by_reward_per_visit() -> None:
    info = SearchController("chess", algorithm="uct", threads=2, seed=3).search(iterations=2000)
    best_q = max(m.q for m in info.moves if m.visits)
    assert info.moves[0].q == best_q and info.bestmove == info.moves[0].move


def test_seeded_parallel_search_repeats_exactly() -> None:
    runs = [
        SearchController("knight", algorithm="uct", threads=2, seed=11).search(iterations=1000)
        for _ in range(2)
    ]
    assert [(m.move, m.visits, m.q) for m in runs[0].moves] == [
        (m.move, m.visits, m.q) for m in runs[1].moves
    ]


def test_alphabeta_refuses_root_parallelism() -> None:
    with pytest.raises(InvalidParameterError, match="threads"):
        SearchController("chess", algorithm="alphabeta", threads=2)
