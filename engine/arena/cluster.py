"""The arena's games on a Dask cluster: the machines of a classroom play them together.

An arena game is a pure function of its job (rules, bots, opening, seed) at an
iterations budget, so a worker anywhere plays the very game this process would
(:func:`engine.arena.play.play_game`). The connection is the one ``canopy train
--scheduler`` makes (:class:`engine.learn.cluster.ClusterPool`): a scheduler address,
or ``local`` for a LocalCluster of two worker processes on this machine; every worker's
Canopy is checked on connect and again by each game, so a worker running another
Canopy (which would play other games) is refused with a one-line :class:`ClusterError`.

Games come back as they finish, each with its job's index; a game is not watchable
while it is played remotely (its moves arrive with its end), only reviewable after.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterator
from typing import Any

from engine.arena.play import ArenaGame, play_game
from engine.arena.rules import ArenaRules, Bot
from engine.learn import cluster as learn_cluster
from engine.learn.cluster import ClusterError, ClusterPool

Job = tuple[ArenaRules, Bot, Bot, int, int]  # rules, white, black, opening, seed
#: Worker processes of ``local`` (the machine's two cores in a classroom laptop).
LOCAL_WORKERS = 2
#: How often the wait for finished games looks at the ``stop`` event (seconds).
STOP_POLL = 0.2

__all__ = ["ClusterError", "Job", "play_on_cluster", "play_remote"]


def play_remote(job: Job, expected: dict[str, Any]) -> ArenaGame:
    """Run on a worker: one game, after checking this worker runs ``expected``'s Canopy."""
    distributed = importlib.import_module("distributed")
    where = distributed.get_worker().address
    refusal = learn_cluster.mismatch(expected, learn_cluster.identity(), where)
    if refusal:
        raise ClusterError(refusal)
    game = play_game(*job)
    assert game is not None  # no stop event: a game always ends
    return game


def play_on_cluster(
    address: str,
    jobs: list[Job],
    timeout: float = 30.0,
    stop: threading.Event | None = None,
) -> Iterator[tuple[int, ArenaGame]]:
    """Play ``jobs`` on the cluster at ``address`` (``local``: a LocalCluster of
    ``LOCAL_WORKERS``); yield (job index, game) as each finishes.

    Connects on the first ``next`` (:class:`ClusterError` within ``timeout`` seconds
    per step if the cluster cannot be used). Setting ``stop`` ends the iteration within
    ``STOP_POLL`` seconds and cancels the games not yet finished, as does closing the
    generator; a game that fails on its worker raises here.
    """
    pool = ClusterPool.connect(address, LOCAL_WORKERS, timeout)
    try:
        distributed = importlib.import_module("distributed")
        mine = learn_cluster.identity()
        index = {
            pool.client.submit(play_remote, job, mine, pure=False): i for i, job in enumerate(jobs)
        }
        pending = set(index)
        try:
            while pending:
                if stop is not None and stop.is_set():
                    return
                try:
                    done, pending = distributed.wait(
                        pending, timeout=STOP_POLL, return_when="FIRST_COMPLETED"
                    )
                except TimeoutError:
                    continue
                for future in sorted(done, key=index.__getitem__):
                    yield index[future], future.result()
        finally:
            for future in index:
                future.cancel()
    finally:
        pool.close()
