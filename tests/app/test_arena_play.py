"""The arena's tournament on the server: games played on the search pool to the end, each
an ordinary stored game with its searches; pause, end and removal; the websocket; the
exports; a human's game never waits behind the arena."""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import chess.pgn
import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from tests.app.test_arena import arena, join, new_arena


def arena_settings(tmp_path: Path, **more: Any) -> Settings:
    return Settings(
        data_dir=tmp_path,
        warmup=False,
        max_searches=2,
        max_threads=2,
        min_think_ms=10,
        think_ms=100,
        iterations=500,
        stats_hz=20,
        node_budget=200_000,
        **more,
    )


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(arena_settings(tmp_path))) as c:
        yield c


def wait_for(
    client: TestClient, aid: str, done: Callable[[dict[str, Any]], bool], timeout: float = 90.0
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        view = arena(client, aid)
        if done(view):
            return view
        assert time.monotonic() < deadline, f"arena {aid} stuck: {view['state']} {view['games']}"
        time.sleep(0.05)


def started(client: TestClient, bots: int = 3, **rules: Any) -> tuple[str, str, list[str]]:
    made = new_arena(client, free={"uct": ["c"]}, **rules)
    aid = made["id"]
    ids = [join_as(client, aid, f"Bot{i}", i)["bot_id"] for i in range(bots)]
    response = client.post(f"/api/arenas/{aid}/start", params={"token": made["token"]})
    assert response.status_code == 200, response.text
    return aid, made["token"], ids


def join_as(client: TestClient, aid: str, name: str, i: int) -> dict[str, Any]:
    """Each bot from its own address (the per-address limit is 2)."""
    client.app.state.arenas.settings.arena_bots_per_client = 64  # type: ignore[attr-defined]
    return join(client, aid, name, params={"c": round(0.3 + 0.4 * i, 2)})


def finished(view: dict[str, Any]) -> bool:
    return view["state"] == "finished"


def test_a_round_robin_plays_every_game_as_a_stored_game(client: TestClient) -> None:
    aid, _, bots = started(client, 3)
    view = wait_for(client, aid, finished)
    games = view["games"]
    assert len(games) == 6 and all(g["status"] == "done" for g in games)
    assert {(g["white"], g["black"]) for g in games} == {
        (a, b) for a in bots for b in bots if a != b
    }
    assert sum(s["points"] for s in view["standings"]) == 6
    assert view["playing"] == []
    assert [s["rank"] for s in view["standings"]] == [1, 2, 3]
    assert view["what_won"]["parameter"] == "c"
    for g in games:
        stored = client.get(f"/api/games/{g['id']}").json()
        assert stored["human"] == "none"
        review = client.get(f"/api/games/{g['id']}/review").json()
        engine_plies = [p for p in review["plies"] if p.get("search")]
        assert engine_plies, review
        assert {p["search"]["params"]["c"] for p in engine_plies} == {
            b["params"]["c"] for b in view["bots"] if b["id"] in (g["white"], g["black"])
        }  # each side searched with its own bot's settings
        assert client.get(f"/games/{g['id']}/watch").status_code == 200


def test_the_exports_hold_the_crosstable_and_every_game(client: TestClient) -> None:
    aid, _, _ = started(client, 3, name="Period <3>")
    view = wait_for(client, aid, finished)
    response = client.get(f"/api/arenas/{aid}/crosstable.csv")
    assert response.status_code == 200 and "attachment" in response.headers["content-disposition"]
    rows = list(csv.reader(io.StringIO(response.text)))
    assert rows[0][:4] == ["rank", "bot", "algorithm", "params"] and len(rows) == 4
    pgn = client.get(f"/api/arenas/{aid}/pgn").text
    assert pgn.count('[Event "Period <3>"]') == 6
    assert pgn.count("[WhiteEngine ") == 6 and pgn.count("[BlackEngine ") == 6
    assert '[WhiteEngine "uct c=0.3"]' in pgn
    for g in view["games"]:
        assert f'[Result "{g["result"]}"]' in pgn
    assert '[Round "1"]' in pgn


def test_a_game_the_move_limit_ends_is_the_same_draw_everywhere(client: TestClient) -> None:
    """The arena adjudicates a draw at max_plies: the stored game, its PGN and the games
    list say what the crosstable says, and name each side's bot with its settings."""
    aid, _, bots = started(client, 2, max_plies=10)
    view = wait_for(client, aid, finished)
    drawn = [g for g in view["games"] if g["reason"] == "max plies"]
    assert drawn, view["games"]
    names = {b["id"]: b["label"] for b in view["bots"]}
    listed = {g["id"]: g for g in client.get("/api/games").json()["games"]}
    for g in drawn:
        assert g["result"] == "1/2-1/2"
        state = client.get(f"/api/games/{g['id']}").json()
        assert (state["result"], state["reason"], state["legal"]) == ("1/2-1/2", "max plies", [])
        assert state["played_by"] == "arena" and state["search"]["paused"] is False
        white, black = state["players"]["white"], state["players"]["black"]
        assert f"{white['name']} ({white['label']})" == names[g["white"]]
        assert f"{black['name']} ({black['label']})" == names[g["black"]]
        assert white["params"]["c"] != black["params"]["c"]
        pgn = chess.pgn.read_game(io.StringIO(client.get(f"/api/games/{g['id']}/pgn").text))
        assert pgn is not None
        h = pgn.headers
        assert (h["Result"], h["EndReason"], h["Termination"]) == (
            "1/2-1/2",
            "max plies",
            "adjudication",
        )
        assert (h["White"], h["Black"]) == (white["name"], black["name"])
        assert (h["WhiteEngine"], h["BlackEngine"]) == (white["label"], black["label"])
        assert listed[g["id"]]["result"] == "1/2-1/2"
        assert listed[g["id"]]["players"] == [names[g["white"]], names[g["black"]]]
    page = client.get("/games", params={"q": names[bots[0]].split(" ")[0]}).text
    assert f"{names[drawn[0]['white']]} vs {names[drawn[0]['black']]}" in page


def test_pause_lets_the_game_finish_and_start_goes_on(client: TestClient) -> None:
    aid, token, _ = started(client, 3, iterations=200)
    wait_for(client, aid, lambda v: bool(v["playing"]))
    assert client.post(f"/api/arenas/{aid}/pause", params={"token": token}).status_code == 200
    paused = wait_for(client, aid, lambda v: not v["playing"])
    assert paused["state"] == "paused"
    done = sum(g["status"] == "done" for g in paused["games"])
    time.sleep(0.8)
    assert sum(g["status"] == "done" for g in arena(client, aid)["games"]) == done
    client.post(f"/api/arenas/{aid}/start", params={"token": token})
    assert len(wait_for(client, aid, finished)["games"]) == 6


def test_end_stops_the_tournament_and_keeps_the_played_games(client: TestClient) -> None:
    aid, token, _ = started(client, 3, iterations=200)
    wait_for(client, aid, lambda v: any(g["status"] == "done" for g in v["games"]))
    view = client.post(f"/api/arenas/{aid}/end", params={"token": token}).json()
    assert view["state"] == "finished" and view["playing"] == []
    done = [g for g in view["games"] if g["status"] == "done"]
    assert done and len(done) < 6
    for g in view["games"]:
        stored = client.get(f"/api/games/{g['id']}")
        assert stored.status_code == (200 if g["status"] == "done" else 404)
    time.sleep(0.5)
    assert arena(client, aid)["games"] == view["games"]


def test_a_bot_removed_after_the_start_plays_no_more(client: TestClient) -> None:
    aid, token, bots = started(client, 3, iterations=100)
    wait_for(client, aid, lambda v: any(g["status"] == "done" for g in v["games"]))
    gone = bots[2]
    response = client.delete(f"/api/arenas/{aid}/bots/{gone}", params={"token": token})
    assert response.status_code == 200, response.text
    view = wait_for(client, aid, finished)
    assert all(g["status"] == "done" for g in view["games"])
    played = [g for g in view["games"] if gone in (g["white"], g["black"])]
    assert len(played) < 4  # its games not yet played were dropped
    kept = [b for b in view["bots"] if b["id"] == gone]
    assert (kept and kept[0]["removed"]) if played else not kept


def test_a_swiss_arena_pairs_each_round_after_the_last(client: TestClient) -> None:
    aid, _, _ = started(client, 3, format="swiss", rounds=2)
    view = wait_for(client, aid, finished)
    rounds = {g["round"] for g in view["games"]}
    assert rounds == {1, 2}
    byes = [g for g in view["games"] if g["black"] is None]
    assert len(byes) == 2 and len({g["white"] for g in byes}) == 2  # a bye each, never twice
    assert all(g["result"] == "1-0" for g in byes)


def test_the_websocket_sends_the_arena_at_once_and_on_changes(client: TestClient) -> None:
    made = new_arena(client)
    aid = made["id"]
    with client.websocket_connect(f"/ws/arenas/{aid}") as ws:
        first = ws.receive_json()
        assert first["type"] == "arena" and first["id"] == aid and first["bots"] == []
        join(client, aid, "Ada")
        frame = ws.receive_json()
        assert [b["name"] for b in frame["bots"]] == ["Ada"]
        ws.send_text('{"type": "start"}')  # read-only: ignored
        join(client, aid, "Bob")
        assert len(ws.receive_json()["bots"]) == 2
    with client.websocket_connect("/ws/arenas/0123456789ab") as ws:
        assert ws.receive_json()["code"] == "not_found"


def test_a_human_game_searches_while_an_arena_runs(tmp_path: Path) -> None:
    settings = arena_settings(tmp_path, arena_concurrency=2)
    with TestClient(create_app(settings)) as client:
        aid, token, _ = started(client, 4, iterations=None, movetime_ms=30)
        wait_for(client, aid, lambda v: bool(v["playing"]))
        runner_runs = client.app.state.arenas.on_start.__self__.runs  # type: ignore[attr-defined]
        pool = client.app.state.service.pool  # type: ignore[attr-defined]
        response = client.post(
            "/api/games", json={"game": "chess", "human": "black", "movetime_ms": 2000}
        )
        assert response.status_code == 201, response.text
        gid = response.json()["id"]
        state = client.get(f"/api/games/{gid}").json()
        assert state["search"]["status"] == "running", state["search"]
        for _ in range(10):  # one slot stays the live games' however many the arena may play
            assert len(runner_runs) <= 1 and pool.queued == 0
            time.sleep(0.05)
        client.post(f"/api/arenas/{aid}/end", params={"token": token})
