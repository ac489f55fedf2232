"""The review on a real PostgreSQL server: searches kept with the moves outlive the app,
and a database created before searches were kept gains the column and keeps its games.

The server is the throwaway cluster of ``test_postgres`` (skips where PostgreSQL is
missing).
"""

from __future__ import annotations

from pathlib import Path

import chess
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from app.main import create_app
from app.settings import Settings
from app.store import SqlStore, token_hash
from engine.play import GameSession
from tests.app.test_review import check_engine_plies, play_engine_game, review
from tests.reliability.test_postgres import pg_url  # noqa: F401 - the PostgreSQL fixture


def _settings(url: str, tmp_path: Path) -> Settings:
    return Settings(
        data_dir=tmp_path,
        database_url=url,
        warmup=False,
        max_iterations=1_000_000,
        max_searches=2,
        node_budget=200_000,
    )


def test_an_engine_game_review_survives_a_restart_on_postgresql(
    pg_url: str,  # noqa: F811 - the fixture imported above
    tmp_path: Path,
) -> None:
    settings = _settings(pg_url, tmp_path)
    with TestClient(create_app(settings)) as client:
        assert client.get("/api/health").json()["db"]["backend"] == "postgresql"
        game = play_engine_game(client)
        before = review(client, game["id"])
    with TestClient(create_app(settings)) as client:  # a new app on the same database
        after = review(client, game["id"])
    assert after == before
    check_engine_plies(after, 20)


def test_a_postgresql_database_from_before_the_review_gains_the_column(
    pg_url: str,  # noqa: F811 - the fixture imported above
) -> None:
    engine = create_engine(pg_url)
    with engine.begin() as conn:  # the tables as they were before searches were kept
        conn.execute(text("DROP TABLE IF EXISTS analyses"))  # it came later and needs games
        conn.execute(text("DROP TABLE IF EXISTS moves"))
        conn.execute(text("DROP TABLE IF EXISTS games"))
        conn.execute(
            text(
                "CREATE TABLE games (id VARCHAR(32) PRIMARY KEY, token_hash VARCHAR(64),"
                " game VARCHAR(16), name VARCHAR(80), start_fen VARCHAR(128), human VARCHAR(8),"
                " engine JSON, result VARCHAR(8), reason VARCHAR(64), ply INTEGER,"
                " rev INTEGER NOT NULL DEFAULT 0, created_at TIMESTAMPTZ, updated_at TIMESTAMPTZ)"
            )
        )
        conn.execute(
            text(
                "CREATE TABLE moves (game_id VARCHAR(32) REFERENCES games(id) ON DELETE CASCADE,"
                ' ply INTEGER, uci VARCHAR(8), san VARCHAR(16), color VARCHAR(5), "by" VARCHAR(6),'
                ' fen VARCHAR(128), "check" BOOLEAN, note JSON, played_at TIMESTAMPTZ,'
                " PRIMARY KEY (game_id, ply))"
            )
        )
        conn.execute(
            text(
                "INSERT INTO games VALUES ('bbbbbbbbbbbb', :h, 'chess', NULL, :fen, 'both',"
                ' \'{"algorithm": "uct"}\', NULL, NULL, 1, 0, now(), now())'
            ),
            {"h": token_hash("t"), "fen": chess.STARTING_FEN},
        )
        conn.execute(
            text(
                "INSERT INTO moves VALUES ('bbbbbbbbbbbb', 0, 'd2d4', 'd4', 'white', 'human',"
                " :fen, false, NULL, now())"
            ),
            {"fen": "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1"},
        )
    engine.dispose()
    store = SqlStore(pg_url)
    try:
        loaded = store.load("bbbbbbbbbbbb")
        assert loaded is not None
        session = GameSession.from_dict(loaded.session)
        assert session.moves == ["d2d4"] and session.history[0].search is None
        session.play("d7d5")
        store.save("bbbbbbbbbbbb", session.to_dict(), 1)
        again = store.load("bbbbbbbbbbbb")
        assert again is not None and [m["uci"] for m in again.session["history"]] == [
            "d2d4",
            "d7d5",
        ]
    finally:
        store.close()
