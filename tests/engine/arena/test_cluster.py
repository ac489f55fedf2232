"""The arena's games on a Dask cluster are the games this process plays: a round robin on
a local cluster of two workers gives the same complete crosstable.

Dask is an optional extra; ``make test`` installs it, so in CI (``CI`` set) these tests
fail rather than skip when it is missing.
"""

from __future__ import annotations

import os
import socket
import threading

import pytest

if not os.environ.get("CI"):
    pytest.importorskip("distributed", reason="the optional extra canopy[cluster]")

from engine.arena.cluster import ClusterError, Job, play_on_cluster
from engine.arena.pairing import round_robin
from engine.arena.play import ArenaGame, opening_count, play_game
from engine.arena.rules import ArenaRules, Bot
from engine.arena.standings import Result, crosstable, standings
from engine.learn import cluster as learn_cluster

# mcts mates the weaker uct bots within the move limit: decisive games, not only draws.
RULES = ArenaRules("chess", iterations=100, max_plies=40, algorithms=("uct", "mcts"))
ENTRIES = [("Ada", "mcts", {}), ("Bob", "uct", {"c": 0.2}), ("Cy", "uct", {"c": 3.0}),
           ("Di", "uct", {"c": 0.7})]  # fmt: skip
BOTS = [
    Bot(f"b{i}", name, algorithm, RULES.validate_bot(name, algorithm, params)[2])
    for i, (name, algorithm, params) in enumerate(ENTRIES)
]
BY_ID = {b.id: b for b in BOTS}


def jobs() -> list[Job]:
    pairings = round_robin([b.id for b in BOTS], 1, opening_count(RULES.game))
    return [
        (RULES, BY_ID[p.white], BY_ID[p.black or ""], p.opening, k) for k, p in enumerate(pairings)
    ]


def moves(game: ArenaGame) -> list[str]:
    return [m.uci for m in game.moves]


def test_a_local_cluster_plays_the_round_robin_this_process_plays() -> None:
    work = jobs()
    assert len(work) == 12
    here = [play_game(*job) for job in work]
    there: dict[int, ArenaGame] = {}
    for index, game in play_on_cluster("local", work, timeout=60):
        assert index not in there
        there[index] = game
    assert sorted(there) == list(range(12))
    for k, game in enumerate(here):
        assert game is not None
        assert (moves(there[k]), there[k].result, there[k].reason) == (
            moves(game), game.result, game.reason,
        )  # fmt: skip

    def results(games: dict[int, ArenaGame]) -> list[Result]:
        return [Result(work[k][1].id, work[k][2].id, games[k].result) for k in sorted(games)]

    local = results({k: g for k, g in enumerate(here) if g is not None})
    table = crosstable(BOTS, results(there))
    assert table == crosstable(BOTS, local)
    assert all(cell is None or cell[1] == 2 for row in table for cell in row)  # complete
    assert any(g.result != "1/2-1/2" for g in there.values())
    assert standings(BOTS, results(there)) == standings(BOTS, local)


def test_stop_ends_the_games_early() -> None:
    stop = threading.Event()
    stop.set()
    assert list(play_on_cluster("local", jobs(), timeout=60, stop=stop)) == []


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unreachable_scheduler_is_refused_within_the_timeout() -> None:
    address = f"tcp://127.0.0.1:{_free_port()}"
    with pytest.raises(ClusterError, match=f"cannot reach the Dask scheduler at {address}"):
        next(play_on_cluster(address, jobs(), timeout=1))


def test_a_worker_with_another_canopy_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = {**learn_cluster.identity(), "version": "0.0.0-other"}
    monkeypatch.setattr(learn_cluster, "identity", lambda: fake)
    with pytest.raises(ClusterError, match="install the same Canopy on every worker"):
        next(play_on_cluster("local", jobs(), timeout=60))
