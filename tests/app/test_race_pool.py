"""A race and the search pool: the race's slot is taken before the race is built.

Building a race (two controllers, their trees) takes a while in a worker
thread; a game that asks for a search meanwhile must queue behind the race,
not take the slot the race was promised (which once let both run while the
pool counted the race as queued).
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from fastapi.testclient import TestClient

import engine.explain.race
from app.main import create_app
from app.pool import SearchPool
from app.settings import Settings
from tests.app.conftest import new_game
from tests.app.test_websocket import is_idle, socket

RACE = {
    "type": "race",
    "action": "start",
    "a": {"algorithm": "uct"},
    "b": {"algorithm": "bfms"},
    "sync": "time",  # 100 ms rounds: a stop takes effect at once
    "movetime_ms": 5_000,
}


def test_a_game_asking_during_the_race_build_queues_behind_the_race(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    building, go = threading.Event(), threading.Event()
    real_race = engine.explain.race.Race

    def slow_race(*args: Any, **kwargs: Any) -> Any:  # runs in the build's worker thread
        building.set()
        assert go.wait(30), "the test never let the race build finish"
        return real_race(*args, **kwargs)

    monkeypatch.setattr(engine.explain.race, "Race", slow_race)
    app = create_app(settings.model_copy(update={"max_searches": 1}))
    with TestClient(app) as client:
        a, b = new_game(client, human="both"), new_game(client, human="both")
        with socket(client, a["ws"]) as wa, socket(client, b["ws"]) as wb:
            wa.recv(), wb.recv()
            wa.send(RACE)
            assert building.wait(30)
            # The race is being built: the only slot is already the race's.
            wb.send({"type": "search", "action": "start"})
            queued = wb.state(lambda f: f["search"]["status"] != "idle")
            assert queued["search"]["status"] == "queued"
            go.set()
            racing = wa.until(lambda f: f["type"] == "race" and f["running"], timeout=30)
            assert racing["running"]
            pool = client.get("/api/server").json()["pool"]
            assert pool == {"capacity": 1, "running": 1, "queued": 1}
            wa.send({"type": "race", "action": "stop"})
            # (a cold numba cache compiles the kernels during the first round)
            wa.until(lambda f: f["type"] == "race" and not f["running"], timeout=90)
            # The race gave its slot back: the queued game runs now.
            wb.state(lambda f: f["search"]["status"] == "running", timeout=30)
            wb.send({"type": "search", "action": "stop"})
            wb.state(is_idle)


def test_a_race_refused_for_want_of_a_slot_holds_nothing(settings: Settings) -> None:
    app = create_app(settings.model_copy(update={"max_searches": 1}))
    with TestClient(app) as client:
        a, b = new_game(client, human="both"), new_game(client, human="both")
        with socket(client, a["ws"]) as wa, socket(client, b["ws"]) as wb:
            wa.recv(), wb.recv()
            wb.send({"type": "search", "action": "start"})
            wb.state(lambda f: f["search"]["status"] == "running")
            wa.send(RACE)
            assert wa.error()["code"] == "busy"
            wb.send({"type": "search", "action": "stop"})
            wb.state(is_idle)
            assert client.get("/api/server").json()["pool"] == {
                "capacity": 1,
                "running": 0,
                "queued": 0,
            }


def test_acquire_takes_a_free_slot_or_nothing_and_never_queues() -> None:
    pool = SearchPool(1)
    assert pool.acquire("race")
    assert pool.acquire("race")  # idempotent
    assert not pool.acquire("other race")
    assert pool.status() == {"capacity": 1, "running": 1, "queued": 0}
    assert pool.request("game") is False  # a game queues behind it
    assert pool.release("race") == ["game"]
    assert not pool.acquire("race")  # the game took the slot
