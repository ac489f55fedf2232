"""The controller: background runs, limits, stop latency, resume, tree reuse, refusals."""

from __future__ import annotations

import json
import threading
import time

import numpy as np
import pytest

from engine.errors import GameOverError, IllegalMoveError, InvalidParameterError
from engine.search.controller import SearchController
from engine.search.info import SearchInfo
from engine.search.tree import ROOT
from tests.timing import limits


def _stop_while_running(controller: SearchController, after: float, limit: float) -> SearchInfo:
    """Start a background search, let it run ``after`` seconds, and stop it within ``limit``
    seconds (the goal is 100 ms; the search has no budget, so a stop that is not heard at
    once waits for a whole leaf search or playout, or for ever)."""
    controller.start()
    time.sleep(after)
    assert controller.running
    begin = time.perf_counter()
    info = controller.stop()
    assert time.perf_counter() - begin < limit
    assert not controller.running and info.stop_reason == "stopped" and not info.running
    return info


@limits(0.1, 1.0)
@pytest.mark.parametrize("algorithm", ["uct", "uct-minimax", "bfms", "alphabeta"])
def test_stop_returns_within_100_ms(algorithm: str, limit: float) -> None:
    controller = SearchController("chess", algorithm=algorithm, threads=1)
    controller.search(iterations=50)  # compiled and warm
    _stop_while_running(controller, 0.3, limit)


KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


@pytest.mark.parametrize(
    ("algorithm", "params", "threads"),
    [
        # The slowest iterations each algorithm allows: a deep leaf search with quiescence
        # (about a second per leaf here, more when loaded: the loaded bound of 0.8 s still
        # fails a stop that waits for a leaf), the longest playouts, two threads.
        ("uct-minimax", {"depth": 6, "quiescence": True}, 1),
        ("uct-minimax", {"depth": 6, "quiescence": True}, 2),
        ("uct", {"ply_cap": 2000}, 2),
        ("bfms", {}, 2),
    ],
)
@limits(0.1, 0.8)
def test_stop_returns_within_100_ms_at_the_slowest_settings(
    algorithm: str, params: dict, threads: int, limit: float
) -> None:
    controller = SearchController(
        "chess", KIWIPETE, algorithm=algorithm, params=params, threads=threads
    )
    controller.search(iterations=1)  # compiled and warm
    info = _stop_while_running(controller, 0.5, limit)
    if algorithm == "uct-minimax":  # a stopped leaf search backs nothing up
        for worker in controller.workers:
            tree = worker.tree
            assert tree.visits[ROOT] == sum(tree.visits[c] for c in tree.children(ROOT))
        assert info.iterations == sum(w.tree.visits[ROOT] for w in controller.workers)


def test_iteration_limit_is_exact_and_resume_keeps_the_tree() -> None:
    controller = SearchController("chess", algorithm="uct", seed=1)
    first = controller.search(iterations=500)
    assert first.iterations == 500 and first.stop_reason == "iterations"
    second = controller.search(iterations=300)
    assert second.iterations == 800
    assert controller.workers[0].tree.visits[ROOT] == 800


@limits(0.6, 3.0)
def test_time_limit_stops_near_the_deadline(limit: float) -> None:
    controller = SearchController("knight", algorithm="uct")
    controller.search(iterations=20)
    begin = time.perf_counter()
    info = controller.search(movetime_ms=300)
    assert info.stop_reason == "time"
    assert 0.29 <= time.perf_counter() - begin < limit  # never early; late only under load


def test_node_limit_counts_tree_nodes() -> None:
    info = SearchController("chess", algorithm="bfms").search(nodes=5000)
    assert info.stop_reason == "nodes" and 5000 <= info.nodes < 5000 + 256 * 300


@limits(4, 2, name="snapshots")  # 400 ms at 20 a second; a starved thread sends fewer
def test_snapshots_stream_while_running_and_end_with_a_final_one(snapshots: int) -> None:
    seen: list[SearchInfo] = []
    controller = SearchController("chess", algorithm="uct", on_info=seen.append, info_interval=0.05)
    controller.search(iterations=20)
    seen.clear()
    controller.search(movetime_ms=400)
    assert len(seen) >= snapshots
    assert all(s.running for s in seen[:-1]) and not seen[-1].running
    assert [s.iterations for s in seen] == sorted(s.iterations for s in seen)
    json.dumps(seen[-1].to_dict())  # snapshots are plain data


def test_play_reuses_the_subtree_of_the_played_move() -> None:
    controller = SearchController("chess", algorithm="uct", seed=3)
    info = controller.search(iterations=4000)
    best = info.moves[0]
    controller.play(best.move)
    tree = controller.workers[0].tree
    assert tree.visits[ROOT] == best.visits
    assert controller.info().iterations == 0
    assert controller.board.move_stack[-1].uci() == best.move
    again = controller.search(iterations=100)
    assert controller.workers[0].tree.visits[ROOT] == best.visits + 100
    assert again.fen == controller.board.fen()


def test_illegal_moves_and_bad_settings_change_nothing() -> None:
    controller = SearchController("chess", algorithm="uct", params={"c": 1.0}, seed=1)
    controller.search(iterations=200)
    fen = controller.board.fen()
    with pytest.raises(IllegalMoveError):
        controller.play("e2e5")
    with pytest.raises(IllegalMoveError):
        controller.play("zz")
    with pytest.raises(InvalidParameterError, match="between"):
        controller.configure(params={"c": -1})
    with pytest.raises(InvalidParameterError, match="unknown parameter"):
        controller.configure(params={"cee": 1})
    assert controller.board.fen() == fen and controller.params["c"] == 1.0
    assert controller.workers[0].tree.visits[ROOT] == 200


@pytest.mark.parametrize(
    ("interval", "message"),
    [
        (0, "between 0.001 and 3600 seconds; got 0"),  # a busy loop beside the search
        (-0.5, "between 0.001 and 3600 seconds"),
        (float("nan"), "between 0.001 and 3600 seconds"),
        (3601.0, "between 0.001 and 3600 seconds"),
        (True, "a number of seconds"),
        ("0.1", "a number of seconds"),
    ],
)
def test_snapshot_intervals_outside_a_millisecond_to_an_hour_are_refused(
    interval: object, message: str
) -> None:
    with pytest.raises(InvalidParameterError, match=f"info_interval must be .*{message}"):
        SearchController("chess", info_interval=interval)  # type: ignore[arg-type]
    controller = SearchController("chess", info_interval=0.5)
    with pytest.raises(InvalidParameterError, match="info_interval"):
        controller.info_interval = interval  # type: ignore[assignment]
    assert controller.info_interval == 0.5


def test_searching_a_finished_game_is_refused() -> None:
    mated = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
    controller = SearchController("chess", mated)
    with pytest.raises(GameOverError):
        controller.start(iterations=10)
    with pytest.raises(GameOverError):
        controller.step()


def test_set_position_with_moves_and_configure_rebuild_the_search() -> None:
    controller = SearchController("chess", algorithm="uct")
    controller.set_position(None, ["e2e4", "e7e5"])
    assert controller.board.fullmove_number == 2
    controller.configure(algorithm="bfms", params={"C": 2.0})
    info = controller.search(iterations=50)
    assert info.algorithm == "bfms" and info.params["C"] == 2.0 and info.params["fpu"] == 0.5


def test_concurrent_stop_calls_are_safe() -> None:
    controller = SearchController("chess", algorithm="uct")
    controller.start()
    time.sleep(0.1)
    threads = [threading.Thread(target=controller.stop) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not controller.running


def test_tree_view_settings_apply_on_rebuild_and_pick_a_thread() -> None:
    controller = SearchController("chess", algorithm="uct", threads=2, tree_size=10, seed=4)
    controller.search(iterations=2000)
    assert len(controller.info().tree) == 10
    controller.tree_size = 40
    assert len(controller.info().tree) == 10  # the published snapshot stays as it was
    assert len(controller.info(rebuild=True).tree) == 40
    controller.tree_thread = 1
    other = controller.info(rebuild=True).tree
    second_tree = controller.workers[1].tree
    assert other[0].visits == int(second_tree.visits[0]) == 1000
    assert [n.visits for n in other] == sorted((n.visits for n in other), reverse=True)


def test_search_threads_can_run_at_a_lower_priority() -> None:
    import os

    if not hasattr(os, "getpriority"):
        pytest.skip("no per-thread priorities on this platform")
    base = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    controller = SearchController("chess", algorithm="uct", nice=3)
    controller.start()
    # Each worker lowers its own priority as it begins, which on a loaded machine can be
    # well after start() returns (once, 100 ms later it had not run yet): poll for it.
    deadline = time.monotonic() + 10.0
    while True:
        workers = [t for t in threading.enumerate() if t.name.startswith("canopy-worker")]
        niceness = [os.getpriority(os.PRIO_PROCESS, t.native_id or 0) for t in workers]
        if niceness and all(n == min(19, base + 3) for n in niceness):
            break
        assert time.monotonic() < deadline, f"worker niceness {niceness}, wanted {base + 3}"
        time.sleep(0.01)
    controller.stop()


def test_steps_add_up_to_the_same_tree_as_a_search() -> None:
    stepped = SearchController("knight", algorithm="uct", seed=21)
    for _ in range(150):
        stepped.step()
    searched = SearchController("knight", algorithm="uct", seed=21)
    searched.search(iterations=150)
    a, b = stepped.workers[0].tree, searched.workers[0].tree
    assert a.used == b.used
    for x, y in zip(a.arrays[:-1], b.arrays[:-1], strict=True):
        np.testing.assert_array_equal(x[: a.used], y[: b.used])


def test_a_step_records_what_its_iteration_did_in_numbers() -> None:
    controller = SearchController("chess", algorithm="uct", seed=3)
    controller.search(iterations=30)
    record = controller.step()
    tree = controller.workers[0].tree
    assert (record.iterations, record.iteration, record.path[0]) == (1, 30, ROOT)
    assert record.created == tuple(range(record.used, tree.used)) == (record.path[-1],)
    for node in record.path[:-1]:  # every node walked through got its visit
        assert tree.visits[node] == record.before_visits[node] + 1
    assert controller.info().iterations == 31
