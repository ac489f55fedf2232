"""A restart in the middle of a tournament: the arena resumes by itself, no finished game
is lost, the game being played is replayed from its start, and the tournament completes.

Each app is built twice on the same database, as a restarted server would be.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from app.store import SqlStore
from tests.app.test_arena import arena, join, new_arena


def arena_settings(tmp_path: Path, url: str | None = None) -> Settings:
    return Settings(
        data_dir=tmp_path,
        database_url=url,
        warmup=False,
        max_searches=2,
        max_threads=2,
        iterations=500,
        node_budget=200_000,
        arena_bots_per_client=8,
    )


def _wait(client: TestClient, aid: str, done: Any, timeout: float = 120.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while not done(view := arena(client, aid)):
        assert time.monotonic() < deadline, view
        time.sleep(0.05)
    return view


def _moves(url: str, gid: str) -> list[str]:
    db = SqlStore(url)
    try:
        stored = db.load(gid)
        return [] if stored is None else [m["uci"] for m in stored.session["history"]]
    finally:
        db.close()


def restart_mid_tournament(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        made = new_arena(client, iterations=150, max_plies=40, free={"uct": ["c"]})
        aid = made["id"]
        for i in range(4):
            join(client, aid, f"Bot{i}", params={"c": 0.3 + 0.3 * i})
        client.post(f"/api/arenas/{aid}/start", params={"token": made["token"]})

        def mid_game(view: dict[str, Any]) -> bool:
            done = any(g["status"] == "done" for g in view["games"])
            return done and bool(view["playing"]) and _plies(client, view["playing"][0]) >= 4

        before = _wait(client, aid, mid_game)
        interrupted = before["playing"][0]
    finished = {g["id"]: g["result"] for g in before["games"] if g["status"] == "done"}
    partial = _moves(settings.db_url, interrupted)
    assert len(partial) >= 4

    with TestClient(create_app(settings)) as client:  # the same database, a new server
        after = _wait(client, aid, lambda v: v["state"] == "finished")
        assert len(after["games"]) == 12 and all(g["status"] == "done" for g in after["games"])
        results = {g["id"]: g["result"] for g in after["games"]}
        assert {gid: results[gid] for gid in finished} == finished  # none lost or replayed
        replayed = _moves(settings.db_url, interrupted)
        # An iterations budget makes a game a pure function of its seed: the replay from
        # the start plays the same first moves the interrupted game had stored.
        assert replayed[: len(partial)] == partial
        assert sum(s["points"] for s in after["standings"]) == 12


def _plies(client: TestClient, gid: str) -> int:
    response = client.get(f"/api/games/{gid}")
    return len(response.json().get("history", [])) if response.status_code == 200 else 0


def test_a_restart_mid_tournament_keeps_finished_games_and_completes(tmp_path: Path) -> None:
    restart_mid_tournament(arena_settings(tmp_path))
