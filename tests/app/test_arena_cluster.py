"""The arena on a Dask cluster (``CANOPY_DASK_SCHEDULER=local``: two local workers): the
server stores each game as it arrives, as it would have played it in this process."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.arena_runner import game_seed
from app.arenas import bot_of, rules_of
from app.main import create_app
from engine.arena.play import play_game
from tests.app.test_arena import arena, join, new_arena
from tests.app.test_arena_play import arena_settings

pytest.importorskip("distributed")


def test_games_played_on_the_cluster_are_stored_as_this_process_plays_them(
    tmp_path: Path,
) -> None:
    settings = arena_settings(tmp_path, dask_scheduler="local", arena_bots_per_client=8)
    with TestClient(create_app(settings)) as client:
        made = new_arena(client, free={"uct": ["c"]})
        aid = made["id"]
        for i in range(3):
            join(client, aid, f"Bot{i}", params={"c": 0.3 + 0.5 * i})
        client.post(f"/api/arenas/{aid}/start", params={"token": made["token"]})
        deadline = time.monotonic() + 180
        while (view := arena(client, aid))["state"] != "finished":
            assert time.monotonic() < deadline, view
            time.sleep(0.2)
        assert len(view["games"]) == 6 and all(g["status"] == "done" for g in view["games"])
        record = client.app.state.arenas.store.load(aid)  # type: ignore[attr-defined]
        first = record.games[0]
        bots = {b.id: bot_of(b) for b in record.bots}
        here = play_game(
            rules_of(record), bots[first.white], bots[first.black], first.opening,
            game_seed(record, first),
        )  # fmt: skip
        assert here is not None and here.result == first.result
        stored = client.get(f"/api/games/{first.game_id}").json()
        played = [m["uci"] for m in stored["history"]]
        assert played == [*here.opening, *(m.uci for m in here.moves)]
        review = client.get(f"/api/games/{first.game_id}/review").json()
        assert sum(1 for p in review["plies"] if p.get("search")) == len(here.moves)
