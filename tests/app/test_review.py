"""GET /api/games/{id}/review: every engine move keeps the search that chose it.

The searches are stored with the moves, so the review reads the same after a
restart; ``eval`` is White's expected score after each ply, from those stored
searches only.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from app.main import create_app
from app.settings import Settings
from app.store import SqlStore, token_hash
from engine.play import GameSession
from tests.app.conftest import Socket, new_game

ENGINE_GAME = {
    "human": "none",
    "algorithm": "mcts",
    "budget": "iterations",
    "iterations": 120,
}


@contextlib.contextmanager
def running(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as client:
        yield client


def play_engine_game(client: TestClient, plies: int = 20) -> dict[str, Any]:
    """An engine-vs-engine game watched until it has ``plies`` plies; then paused."""
    game = new_game(client, **ENGINE_GAME)
    with client.websocket_connect(game["ws"]) as raw:
        ws = Socket(raw)
        ws.state(lambda f: f["ply"] >= plies or f["result"] is not None, timeout=240)
        ws.send({"type": "search", "action": "stop"})
        ws.state(lambda f: f["search"]["status"] == "idle")
    return game


def review(client: TestClient, gid: str, **query: Any) -> dict[str, Any]:
    response = client.get(f"/api/games/{gid}/review", params=query)
    assert response.status_code == 200, response.text
    return response.json()


def check_engine_plies(body: dict[str, Any], plies: int) -> None:
    """The contract's shape, and each engine ply's search consistent with the move made."""
    assert set(body) >= {"id", "game", "plies"} and body["game"] == "chess"
    board = chess.Board()
    assert len(body["plies"]) >= plies
    for index, ply in enumerate(body["plies"], start=1):
        assert set(ply) >= {"ply", "uci", "san", "by", "fen", "search", "eval"}
        assert ply["ply"] == index and ply["by"] == "engine"
        search = ply["search"]
        assert search is not None, f"ply {index} has no search"
        assert set(search) >= {"algorithm", "params", "iterations", "ms", "nodes", "moves"}
        assert search["algorithm"] == "mcts" and search["fen"] == board.fen()
        assert ply["san"] == board.san(chess.Move.from_uci(ply["uci"]))
        board.push_uci(ply["uci"])
        assert ply["fen"] == board.fen()
        moves = search["moves"]
        assert 0 < len(moves) <= 13  # the top 12, and the move played if it was not among them
        for m in moves:
            assert set(m) >= {"uci", "san", "visits", "share", "q", "eval", "pv"}
            assert len(m["pv"]) <= 8 and (not m["pv"] or m["pv"][0] == m["uci"])
        visits = sum(m["visits"] for m in moves)
        # Tree reuse: the root's children keep the visits they had before this search.
        assert visits <= search["iterations"] + search["reused"]
        if index == 1:  # a fresh tree: every visit is this search's own
            assert search["reused"] == 0 and visits <= search["iterations"]
        assert search["iterations"] >= ENGINE_GAME["iterations"]
        played = next((m for m in moves if m["uci"] == ply["uci"]), None)
        assert played is not None, f"ply {index}: {ply['uci']} is not in its own search"
        white = played["q"] if search["turn"] == "white" else 1 - played["q"]
        assert ply["eval"] == pytest.approx(white, abs=1e-3) and 0 <= ply["eval"] <= 1


def test_an_engine_game_keeps_the_search_behind_every_move(client: TestClient) -> None:
    game = play_engine_game(client)
    body = review(client, game["id"])
    assert body["id"] == game["id"]
    check_engine_plies(body, 20)


def test_the_review_reads_the_same_after_a_restart(settings: Settings) -> None:
    with running(settings) as client:
        game = play_engine_game(client)
        before = review(client, game["id"])
    with running(settings) as client:  # a new app on the same database
        after = review(client, game["id"])
    assert after == before
    check_engine_plies(after, 20)


def test_from_sends_only_the_later_plies(client: TestClient) -> None:
    game = play_engine_game(client, plies=6)
    whole = review(client, game["id"])["plies"]
    tail = review(client, game["id"], **{"from": 4})["plies"]
    assert tail == whole[3:] and tail[0]["ply"] == 4
    assert client.get(f"/api/games/{game['id']}/review?from=0").status_code == 422


def test_a_human_move_keeps_the_analysis_running_in_its_position(client: TestClient) -> None:
    game = new_game(client, human="both", algorithm="mcts")
    with client.websocket_connect(game["ws"]) as raw:
        ws = Socket(raw)
        ws.recv()
        ws.send({"type": "search", "action": "start"})
        ws.until(lambda f: f["type"] == "stats" and f["iterations"] >= 200)
        ws.send({"type": "move", "uci": "e2e4"})
        ws.state(lambda f: f["ply"] == 1)
        ws.send({"type": "move", "uci": "e7e5"})  # no search ran after e4: nothing to keep
        ws.state(lambda f: f["ply"] == 2)
    first, second = review(client, game["id"])["plies"]
    assert first["by"] == "human" and first["search"] is not None
    assert first["search"]["fen"] == chess.STARTING_FEN
    assert first["search"]["iterations"] >= 200
    assert any(m["uci"] == "e2e4" for m in first["search"]["moves"])
    assert first["eval"] is not None and 0 <= first["eval"] <= 1
    assert second["by"] == "human" and second["search"] is None and second["eval"] is None


def test_a_review_of_an_unknown_game_is_not_found(client: TestClient) -> None:
    assert client.get("/api/games/abcdefabcdef/review").status_code == 404


def test_a_database_from_before_the_review_gains_the_column_and_keeps_its_games(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    old = create_engine(url)
    with old.begin() as conn:  # the moves table as it was before searches were kept
        conn.execute(
            text(
                "CREATE TABLE games (id VARCHAR(32) PRIMARY KEY, token_hash VARCHAR(64),"
                " game VARCHAR(16), name VARCHAR(80), start_fen VARCHAR(128), human VARCHAR(8),"
                " engine JSON, result VARCHAR(8), reason VARCHAR(64), ply INTEGER,"
                " rev INTEGER NOT NULL DEFAULT 0, created_at DATETIME, updated_at DATETIME)"
            )
        )
        conn.execute(
            text(
                "CREATE TABLE moves (game_id VARCHAR(32) REFERENCES games(id) ON DELETE CASCADE,"
                " ply INTEGER, uci VARCHAR(8), san VARCHAR(16), color VARCHAR(5), by VARCHAR(6),"
                ' fen VARCHAR(128), "check" BOOLEAN, note JSON, played_at DATETIME,'
                " PRIMARY KEY (game_id, ply))"
            )
        )
        conn.execute(
            text(
                "INSERT INTO games VALUES ('aaaaaaaaaaaa', :h, 'chess', NULL, :fen, 'both',"
                " '{\"algorithm\": \"uct\"}', NULL, NULL, 1, 0, '2026-01-01 00:00:00',"
                " '2026-01-01 00:00:00')"
            ),
            {"h": token_hash("t"), "fen": chess.STARTING_FEN},
        )
        after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
        conn.execute(
            text(
                "INSERT INTO moves VALUES ('aaaaaaaaaaaa', 0, 'e2e4', 'e4', 'white', 'human',"
                " :fen, 0, NULL, '2026-01-01 00:00:00')"
            ),
            {"fen": after_e4},
        )
    old.dispose()
    store = SqlStore(url)
    try:
        loaded = store.load("aaaaaaaaaaaa")
        assert loaded is not None
        session = GameSession.from_dict(loaded.session)
        assert session.moves == ["e2e4"] and session.history[0].search is None
        session.play("e7e5")
        store.save("aaaaaaaaaaaa", session.to_dict(), 1)
        again = store.load("aaaaaaaaaaaa")
        assert again is not None and len(again.session["history"]) == 2
    finally:
        store.close()
