"""Algorithm races: two searches of one position kept in step by iterations or by time."""

from __future__ import annotations

import time

import pytest

from engine.errors import InvalidParameterError
from engine.explain.race import Contender, Race, RaceInfo
from tests.timing import limits


def test_race_by_iterations_keeps_both_sides_level_every_round() -> None:
    rounds: list[RaceInfo] = []
    race = Race(
        "chess", None, Contender("uct"), Contender("bfms"),
        round_iterations=200, on_info=rounds.append,
    )  # fmt: skip
    final = race.run(iterations=1000)
    assert final.a.iterations == final.b.iterations == 1000
    assert [r.a.iterations for r in rounds] == [r.b.iterations for r in rounds]
    assert final.round == 5 and not final.running
    assert final.agree == (final.a.bestmove == final.b.bestmove)
    assert final.labels == ("uct", "bfms")


@limits(150, 400, name="apart_ms")
def test_race_by_time_gives_each_side_the_same_time(apart_ms: float) -> None:
    race = Race("knight", None, Contender("uct"), Contender("alphabeta"), sync="time", round_ms=100)
    race.run(movetime_ms=50)  # warm both
    final = Race(
        "knight", None, Contender("uct"), Contender("alphabeta"), sync="time", round_ms=100
    ).run(movetime_ms=300)
    # Each side gets the same time slices (the margin absorbs a loaded machine).
    assert final.a.elapsed_ms == pytest.approx(final.b.elapsed_ms, abs=apart_ms)
    assert final.round == 3


def test_ranks_show_where_each_side_puts_the_others_moves() -> None:
    final = Race("chess", None, Contender("uct"), Contender("uct", {"c": 2.0}), top=3).run(
        iterations=600
    )
    for move, own_rank, other_rank in final.ranks_a:
        assert final.a.moves[own_rank].move == move
        assert other_rank is None or final.b.moves[other_rank].move == move
    assert final.labels == ("uct", "uct (c=2)")


@limits(0.2, 2.0)  # a round is 100,000 iterations: a stop that waited for it takes seconds
def test_background_race_stops_promptly_and_play_advances_both(limit: float) -> None:
    race = Race(
        "chess", None, Contender("uct"), Contender("uct", threads=2), round_iterations=100_000
    )
    race.run(iterations=10)
    race.start()
    time.sleep(0.2)
    begin = time.perf_counter()
    info = race.stop()
    assert time.perf_counter() - begin < limit and not info.running
    race.play("e2e4")
    assert all(c.board.fen() == race.controllers[0].board.fen() for c in race.controllers)


def test_a_stop_landing_between_the_rounds_check_and_its_starts_runs_no_round() -> None:
    """stop() sets the race's flag, then stops the controllers; if the race thread had
    passed its loop check but not yet started the controllers, those starts come after
    the controllers' stop. The race must see the flag and stop them, not run a round of
    100,000 iterations first. The interleaving is forced: the first start does what a
    concurrent stop() would have done just before it."""
    race = Race("chess", None, Contender("uct"), Contender("uct"), round_iterations=100_000)
    first = race.controllers[0]
    original = first.start
    calls = 0

    def start_after_a_stop(**kwargs: object) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            race._stop.set()
            for c in race.controllers:
                c.stop()
        original(**kwargs)  # type: ignore[arg-type]

    first.start = start_after_a_stop  # type: ignore[method-assign]
    final = race.run(iterations=100_000)
    assert calls == 1
    assert final.round <= 1
    assert final.a.iterations < 100_000 and final.b.iterations < 100_000


def test_bad_race_settings_are_refused() -> None:
    with pytest.raises(InvalidParameterError, match="sync"):
        Race("chess", None, Contender("uct"), Contender("bfms"), sync="moves")
