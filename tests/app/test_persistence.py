"""Games in the database: they outlive the app, unload and reload, and a failing database
refuses the request without changing the game."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.exc import OperationalError
from starlette.websockets import WebSocketDisconnect

from app.main import create_app
from app.settings import Settings
from app.store import SqlStore, token_hash
from engine.play import EngineSettings, GameSession, Player
from tests.app.conftest import Socket, game_state, new_game


@contextlib.contextmanager
def running(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as client:
        yield client


@contextlib.contextmanager
def socket(client: TestClient, url: str) -> Iterator[Socket]:
    with client.websocket_connect(url) as raw:
        yield Socket(raw)


def play(ws: Socket, moves: list[str]) -> dict:
    state = ws.recv()
    for uci in moves:
        ws.send({"type": "move", "uci": uci})
        ply = state["ply"]
        state = ws.state(lambda f, ply=ply: f["ply"] > ply)
    return state


def test_a_game_outlives_the_app_with_moves_settings_name_and_token(settings: Settings) -> None:
    with running(settings) as client:
        game = new_game(client, human="both", algorithm="bfms", name="Ada's <b>game</b>")
        with socket(client, game["ws"]) as ws:
            play(ws, ["e2e4", "e7e5", "g1f3"])
        before = game_state(client, game["id"])
    with running(settings) as client:  # a new process in all but name: same data dir
        after = game_state(client, game["id"])
        assert after["moves"] == ["e2e4", "e7e5", "g1f3"]
        assert after["fen"] == before["fen"] and after["settings"] == before["settings"]
        assert after["name"] == "Ada's <b>game</b>" and after["human"] == "both"
        with socket(client, game["ws"]) as ws:
            state = ws.recv()
            assert state["role"] == "player"  # the token still authorises
            ws.send({"type": "move", "uci": "b8c6"})
            assert ws.state(lambda f: f["ply"] == 4)["moves"][-1] == "b8c6"


def test_undo_and_a_new_start_position_rewrite_the_stored_moves(settings: Settings) -> None:
    fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
    with running(settings) as client:
        game = new_game(client, human="both")
        with socket(client, game["ws"]) as ws:
            play(ws, ["d2d4", "d7d5", "c2c4"])
            ws.send({"type": "undo"})
            ws.state(lambda f: f["ply"] == 2)
        with running(settings) as other:  # a second app reading the same database
            assert game_state(other, game["id"])["moves"] == ["d2d4", "d7d5"]
        with socket(client, game["ws"]) as ws:
            ws.recv()
            ws.send({"type": "setup", "fen": fen})
            ws.state(lambda f: f["start_fen"] == fen)
    with running(settings) as client:
        after = game_state(client, game["id"])
        assert after["start_fen"] == fen and after["moves"] == []


def test_the_database_keeps_a_hash_of_the_token_never_the_token(settings: Settings) -> None:
    with running(settings) as client:
        game = new_game(client, human="white")
    raw = (settings.data_dir / "canopy.db").read_bytes()
    wal = settings.data_dir / "canopy.db-wal"
    raw += wal.read_bytes() if wal.exists() else b""
    assert game["token"].encode() not in raw
    with contextlib.closing(sqlite3.connect(settings.data_dir / "canopy.db")) as db:
        (stored,) = db.execute("select token_hash from games where id=?", (game["id"],)).fetchone()
    assert stored == token_hash(game["token"])


def test_sqlite_runs_in_wal_mode_with_full_sync(settings: Settings) -> None:
    store = SqlStore(settings.db_url)
    try:
        with store.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
    finally:
        store.close()


def test_idle_games_are_unloaded_to_the_database_and_reloaded_on_demand(
    settings: Settings,
) -> None:
    with running(settings.model_copy(update={"max_games": 2})) as client:
        service = client.app.state.service  # type: ignore[attr-defined]
        first = new_game(client, human="both")
        with socket(client, first["ws"]) as ws:
            play(ws, ["e2e4", "c7c5"])
        second = new_game(client, human="both")
        third = new_game(client, human="both")  # memory is full: the oldest idle game goes
        assert service.store.get(first["id"]) is None
        assert {g.id for g in service.store.values()} == {second["id"], third["id"]}
        state = game_state(client, first["id"])  # loaded again from the database
        assert state["moves"] == ["e2e4", "c7c5"]
        assert service.store.get(first["id"]) is not None and len(service.store) == 2
        listed = client.get("/api/games").json()["games"]
        assert {g["id"] for g in listed} == {first["id"], second["id"], third["id"]}
        assert all("token" not in g for g in listed)


def test_games_watched_by_someone_are_never_unloaded(settings: Settings) -> None:
    with running(settings.model_copy(update={"max_games": 1})) as client:
        first = new_game(client, human="both")
        with socket(client, first["ws"]) as ws:
            ws.recv()
            response = client.post("/api/games", json={"human": "both"})
            assert response.status_code == 503
            assert response.json()["code"] == "too_many_games"


def test_a_failing_database_refuses_the_move_and_leaves_the_game_as_it_was(
    client: TestClient, connect
) -> None:
    game = new_game(client, human="both")
    ws = connect(game)
    play(ws, ["e2e4"])
    before = game_state(client, game["id"])
    store = client.app.state.service.db  # type: ignore[attr-defined]

    def broken(*args: object) -> None:
        raise OperationalError("UPDATE games", {}, Exception("disk I/O error"))

    store.save = broken
    ws.send({"type": "move", "uci": "e7e5"})
    error = ws.error()
    assert error["code"] == "storage_unavailable" and error["request"] == "move"
    after = game_state(client, game["id"])
    assert after["moves"] == before["moves"] == ["e2e4"]
    assert after["fen"] == before["fen"]
    del store.save  # the database is back: the same move is accepted
    ws.send({"type": "move", "uci": "e7e5"})
    assert ws.state(lambda f: f["ply"] == 2)["moves"] == ["e2e4", "e7e5"]


def test_health_is_degraded_with_503_when_the_database_does_not_answer(
    client: TestClient,
) -> None:
    store = client.app.state.service.db  # type: ignore[attr-defined]

    def down() -> float:
        raise OperationalError("SELECT 1", {}, Exception("connection refused"))

    store.ping = down
    response = client.get("/api/health")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "degraded" and body["db"]["ok"] is False
    assert body["pool"]["capacity"] == 2


def test_a_search_nobody_watches_stops_and_resumes_when_someone_returns(
    settings: Settings,
) -> None:
    quick = settings.model_copy(update={"idle_search_s": 0.3, "janitor_s": 0.1})
    with running(quick) as client:
        game = new_game(client, human="none", movetime_ms=5_000)
        with socket(client, game["ws"]) as ws:
            ws.state(lambda f: f["search"]["status"] == "running")
        deadline = time.monotonic() + 10
        while game_state(client, game["id"])["search"]["status"] != "idle":
            assert time.monotonic() < deadline, "the unwatched search did not stop"
            time.sleep(0.1)
        state = game_state(client, game["id"])
        assert state["search"]["paused"] is True
        with socket(client, game["ws"]) as ws:  # someone watches again: the engine goes on
            ws.state(lambda f: f["search"]["status"] == "running" and not f["search"]["paused"])


def test_memory_per_search_caps_the_tree_and_the_hash_table(settings: Settings) -> None:
    small = settings.model_copy(update={"search_memory_mb": 8, "max_threads": 2})
    with running(small) as client:
        limits = client.get("/api/settings").json()
        assert limits["search_memory_mb"] == 8
        from engine.search.tree import BYTES_PER_NODE

        assert limits["node_budget"] * 2 * BYTES_PER_NODE <= 8 * 1024 * 1024
        response = client.post(
            "/api/games", json={"algorithm": "alphabeta", "params": {"hash_mb": 16}}
        )
        assert response.status_code == 400
        assert "hash_mb" in response.json()["message"]


def test_two_servers_holding_one_game_cannot_overwrite_each_other(settings: Settings) -> None:
    """A misrouted load balancer: the stale copy's save is refused, and it reloads."""
    with running(settings) as a, running(settings) as b:
        game = new_game(a, human="both")
        with socket(a, game["ws"]) as wa, socket(b, game["ws"]) as wb:
            wa.recv(), wb.recv()
            wa.send({"type": "move", "uci": "e2e4"})
            wa.state(lambda f: f["ply"] == 1)
            wb.send({"type": "move", "uci": "d2d4"})  # b still thinks it is the start
            error = wb.error()
            assert error["code"] == "conflict"
            with pytest.raises(WebSocketDisconnect) as closed:
                wb.until(lambda f: False, timeout=10)
            assert closed.value.code == 1012  # reconnect: b loads the stored game afresh
        assert game_state(b, game["id"])["moves"] == ["e2e4"]
        with socket(b, game["ws"]) as wb:
            assert wb.recv()["moves"] == ["e2e4"]
            wb.send({"type": "move", "uci": "e7e5"})
            assert wb.state(lambda f: f["ply"] == 2)["moves"] == ["e2e4", "e7e5"]


def test_a_stored_game_with_a_parameter_no_longer_known_loads_and_plays_without_it(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """A game saved when ``mcts`` still had a setting since retired keeps that name in its
    stored parameters: the game loads without it (said in the log), shows the parameters
    the engine still has, and the engine plays; a user naming it now is refused."""
    with running(settings) as client:
        game = new_game(client, human="white", algorithm="mcts")
    with contextlib.closing(sqlite3.connect(settings.data_dir / "canopy.db")) as db, db:
        (engine,) = db.execute("select engine from games where id=?", (game["id"],)).fetchone()
        stored = json.loads(engine)
        stored["params"] = {**stored["params"], "centre": 0.0, "capture_plies": 0}
        db.execute("update games set engine=? where id=?", (json.dumps(stored), game["id"]))
    with running(settings) as client, caplog.at_level("INFO"):
        state = game_state(client, game["id"])
        params = state["settings"]["params"]
        assert "centre" not in params and "capture_plies" not in params and "c_puct" in params
        assert "centre" in caplog.text and game["id"] in caplog.text
        with socket(client, game["ws"]) as ws:
            assert play(ws, ["e2e4"])["ply"] >= 1
            assert len(ws.state(lambda f: f["ply"] == 2)["moves"]) == 2  # the engine's reply
        refused = client.post(
            "/api/games", json={"human": "white", "algorithm": "mcts", "params": {"centre": 1}}
        )
        assert refused.status_code == 400 and "unknown parameter 'centre'" in refused.text


def test_players_and_an_adjudicated_result_survive_the_store(settings: Settings) -> None:
    """A game of two named players ended by a referee loads back the same: its players, who
    plays it and the referee's result, which the games list shows too."""
    uct = EngineSettings(algorithm="uct", params={"c": 0.7}, budget="iterations")
    players = {"white": Player("Ada", uct, "uct c=0.7", "a1"), "black": Player("Bob", uct)}
    session = GameSession("chess", human="none", engine=uct, players=players, played_by="arena")
    session.play("e2e4", by="engine")
    session.adjudicate("1/2-1/2", "max plies")
    store = SqlStore(settings.db_url)
    try:
        store.create("abc123abc123", token_hash("t"), None, session.to_dict(), session.outcome)
        stored = store.load("abc123abc123")
        assert stored is not None and "_players" not in stored.session["engine"]
        back = GameSession.from_dict(stored.session)
        assert (back.result, back.reason, back.played_by) == ("1/2-1/2", "max plies", "arena")
        assert back.players == session.players and back.to_dict() == session.to_dict()
        (listed,) = store.recent()
        assert (listed.result, listed.players) == ("1/2-1/2", ("Ada (uct c=0.7)", "Bob"))
    finally:
        store.close()
