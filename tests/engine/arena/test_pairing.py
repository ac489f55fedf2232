"""Round robin by the circle method and Swiss rounds: who meets whom, with which colours
and openings."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.arena.pairing import Pairing, round_robin, swiss_round
from engine.arena.rules import ArenaError
from engine.arena.standings import Result

BOTS = ["a", "b", "c", "d"]


def test_four_bots_one_cycle_is_twelve_games_each_pair_twice_with_colours_swapped() -> None:
    games = round_robin(BOTS, rounds=1, openings=60)
    assert len(games) == 12
    by_pair = Counter(frozenset((g.white, g.black)) for g in games)
    assert len(by_pair) == 6 and set(by_pair.values()) == {2}
    assert Counter((g.white, g.black) for g in games) == Counter(
        {(w, b): 1 for w in BOTS for b in BOTS if w != b}
    )
    for first, second in zip(games[::2], games[1::2], strict=True):
        assert (first.white, first.black) == (second.black, second.white)
        assert first.opening == second.opening and first.round == second.round


def test_every_bot_plays_once_a_round_with_balanced_colours() -> None:
    games = round_robin(BOTS, rounds=2, openings=60)
    assert len(games) == 24 and max(g.round for g in games) == 6
    for r in range(1, 7):
        playing = [b for g in games if g.round == r for b in (g.white, g.black)]
        assert Counter(playing) == Counter({b: 2 for b in BOTS})
    assert Counter(g.white for g in games) == Counter(g.black for g in games)


def test_openings_are_dealt_in_order_one_per_meeting_modulo_the_book() -> None:
    games = round_robin(BOTS, rounds=1, openings=4)
    assert [g.opening for g in games[::2]] == [0, 1, 2, 3, 0, 1]


def test_an_odd_count_rests_one_bot_a_round_and_still_meets_every_pair() -> None:
    games = round_robin(["a", "b", "c"], rounds=1, openings=60)
    assert len(games) == 6 and max(g.round for g in games) == 3
    assert len({frozenset((g.white, g.black)) for g in games}) == 3


def test_the_schedule_is_a_pure_function_of_its_arguments() -> None:
    ids = [f"bot{i}" for i in range(7)]
    assert round_robin(ids, 2, 10) == round_robin(ids, 2, 10)


def test_round_robin_refuses_nonsense() -> None:
    with pytest.raises(ArenaError, match="rounds"):
        round_robin(BOTS, 0, 10)
    with pytest.raises(ArenaError, match="distinct"):
        round_robin(["a", "a"], 1, 10)
    assert round_robin(["a"], 1, 10) == []


def _play(pairings: list[Pairing], winner: dict[str, int]) -> list[Result]:
    """Results where the bot with the larger ``winner`` number wins; byes score 1-0."""
    out = []
    for p in pairings:
        if p.black is None:
            out.append(Result(p.white, None, "1-0"))
        else:
            out.append(
                Result(p.white, p.black, "1-0" if winner[p.white] > winner[p.black] else "0-1")
            )
    return out


def _matchings(ids: list[str]) -> list[set[frozenset[str]]]:
    """Every way to pair ``ids`` (even length)."""
    if not ids:
        return [set()]
    top, rest = ids[0], ids[1:]
    return [
        {frozenset((top, other)), *tail}
        for i, other in enumerate(rest)
        for tail in _matchings(rest[:i] + rest[i + 1 :])
    ]


def test_swiss_never_repeats_a_pairing_while_one_without_a_rematch_exists() -> None:
    ids = [f"b{i}" for i in range(6)]
    results: list[Result] = []
    seen: set[frozenset[str]] = set()
    for r in range(1, 8):
        pairings = swiss_round(ids, results, r, openings=60)
        assert len(pairings) == 6 and {p.round for p in pairings} == {r}
        meetings = {frozenset((p.white, p.black or "")) for p in pairings}
        assert len(meetings) == 3
        possible = any(not m & seen for m in _matchings(ids))
        assert bool(meetings & seen) == (not possible)
        seen |= meetings
        results += _play(pairings, {b: (i * 7) % 5 for i, b in enumerate(ids)})
    assert len(seen) == 15  # by the seventh round every pair has met


def test_swiss_first_round_pairs_in_the_given_order_and_the_leaders_meet_next() -> None:
    first = swiss_round(BOTS, [], 1, openings=60)
    assert [(p.white, p.black) for p in first[::2]] == [("a", "b"), ("c", "d")]
    results = _play(first, {"a": 3, "b": 0, "c": 2, "d": 1})  # a and c lead with 2 points
    second = swiss_round(BOTS, results, 2, openings=60)
    assert frozenset((second[0].white, second[0].black)) == {"a", "c"}
    assert second[0].opening == second[1].opening == 2  # openings go on from round 1


def test_swiss_gives_an_odd_count_a_bye_each_round_to_the_lowest_without_one() -> None:
    ids = ["a", "b", "c", "d", "e"]
    results: list[Result] = []
    byes = []
    for r in range(1, 6):
        pairings = swiss_round(ids, results, r, openings=60)
        resting = [p for p in pairings if p.bye]
        assert len(resting) == 1 and resting[0].opening == -1
        byes.append(resting[0].white)
        results += _play(pairings, {b: i for i, b in enumerate(ids)})
    assert sorted(byes) == ids  # everyone rests once before anyone twice


def test_swiss_allows_a_rematch_only_when_no_pairing_avoids_it() -> None:
    results = [Result("a", "b", "1-0"), Result("b", "a", "1-0")]
    pairings = swiss_round(["a", "b"], results, 2, openings=60)
    assert {frozenset((p.white, p.black)) for p in pairings} == {frozenset(("a", "b"))}
