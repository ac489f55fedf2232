"""The same store code against a real PostgreSQL server (and SQLite, side by side).

The fixture starts a throwaway cluster from Debian's ``postgresql`` binaries
(``make sysdeps`` installs them): ``initdb`` into a temporary directory, then
``pg_ctl start`` listening on a Unix socket in that directory only. PostgreSQL
refuses to run as root, so as root the cluster belongs to the ``postgres``
user (or ``nobody``). Where the binaries are missing or the cluster cannot
start, the PostgreSQL cases skip and say why.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from app.store import SqlStore, token_hash
from engine.play import GameSession
from tests.app.conftest import Socket, game_state, new_game
from tests.reliability.server import free_port


def _pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _as_user() -> list[str]:
    """Prefix that runs a command as an unprivileged user when we are root."""
    if os.geteuid() != 0:
        return []
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            return ["runuser", "-u", name, "--"]
    pytest.skip("running as root and there is no 'postgres' or 'nobody' user to run PostgreSQL")


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    bindir = _pg_bin()
    if bindir is None:
        pytest.skip("PostgreSQL binaries not found (Debian: apt-get install postgresql)")
    prefix = _as_user()
    root = Path(tempfile.mkdtemp(prefix="canopy-pg-"))
    data = root / "data"
    port = free_port()
    if prefix:
        owner = prefix[2]
        shutil.chown(root, user=owner)
        root.chmod(0o700)
    run = {"capture_output": True, "text": True, "timeout": 120}
    init = subprocess.run(
        [*prefix, str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "canopy",
         "--no-sync", "-E", "UTF8"], **run,
    )  # fmt: skip
    if init.returncode != 0:
        shutil.rmtree(root, ignore_errors=True)
        pytest.skip(f"initdb failed: {init.stderr.strip()[-300:]}")
    options = f"-p {port} -k {root} -c listen_addresses='' -c fsync=on"
    start = subprocess.run(
        [*prefix, str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-w", "-t", "60",
         "-l", str(root / "log"), "start"], **run,
    )  # fmt: skip
    if start.returncode != 0:
        log = (root / "log").read_text() if (root / "log").exists() else start.stderr
        shutil.rmtree(root, ignore_errors=True)
        pytest.skip(f"PostgreSQL did not start: {log.strip()[-300:]}")
    try:
        yield f"postgresql+psycopg://canopy@/postgres?host={root}&port={port}"
    finally:
        subprocess.run(
            [*prefix, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"], **run
        )
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SqlStore]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'canopy.db'}"
    else:
        url = request.getfixturevalue("pg_url")
    s = SqlStore(url)
    assert s.backend == request.param
    with s.engine.begin() as conn:  # each case starts empty (the cluster is shared)
        conn.exec_driver_sql("DELETE FROM moves")
        conn.exec_driver_sql("DELETE FROM games")
    yield s
    s.close()


def _played(moves: list[str], **kw: object) -> GameSession:
    session = GameSession("chess", human="both", **kw)  # type: ignore[arg-type]
    for uci in moves:
        session.play(uci)
    return session


def test_the_store_saves_loads_truncates_and_lists_the_same_on_both(store: SqlStore) -> None:
    s = _played(["e2e4", "e7e5"])
    store.create("aaaaaaaaaaaa", token_hash("tok"), "Ada <3", s.to_dict(), (None, None))
    s.play("g1f3")
    s.play("b8c6")
    store.save("aaaaaaaaaaaa", s.to_dict(), 2, (None, None), paused=True)
    loaded = store.load("aaaaaaaaaaaa")
    assert loaded is not None
    again = GameSession.from_dict(loaded.session)
    assert again.moves == ["e2e4", "e7e5", "g1f3", "b8c6"] and again.fen == s.fen
    assert loaded.paused is True and loaded.name == "Ada <3"
    assert loaded.token_hash == token_hash("tok")
    assert loaded.created_at.tzinfo is not None

    s.undo()  # human "both": one ply
    store.save("aaaaaaaaaaaa", s.to_dict(), 3, (None, None))
    loaded = store.load("aaaaaaaaaaaa")
    assert loaded is not None and [m["uci"] for m in loaded.session["history"]] == s.moves

    mate = _played(["f2f3", "e7e5", "g2g4", "d8h4"])
    store.create("bbbbbbbbbbbb", token_hash("t2"), None, mate.to_dict(), (mate.result, mate.reason))
    listed = store.recent(10)
    assert [g.id for g in listed] == ["bbbbbbbbbbbb", "aaaaaaaaaaaa"]
    assert listed[0].result == "0-1" and listed[0].reason == "checkmate" and listed[0].ply == 4
    assert store.count() == 2 and store.load("cccccccccccc") is None
    assert store.ping() >= 0.0


def test_a_duplicate_id_is_refused_by_the_database(store: SqlStore) -> None:
    s = _played([])
    store.create("dddddddddddd", token_hash("a"), None, s.to_dict())
    with pytest.raises(Exception, match=r"(?i)unique|duplicate"):
        store.create("dddddddddddd", token_hash("b"), None, s.to_dict())


def test_the_app_on_postgresql_keeps_games_across_restarts(pg_url: str, tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, database_url=pg_url, warmup=False, think_ms=100)
    with TestClient(create_app(settings)) as client:
        db = client.get("/api/health").json()["db"]
        assert db["backend"] == "postgresql" and db["ok"] is True
        game = new_game(client, human="both", name="on postgres")
        with client.websocket_connect(game["ws"]) as raw:
            ws = Socket(raw)
            ws.recv()
            for ply, uci in enumerate(["d2d4", "g8f6", "c2c4"], start=1):
                ws.send({"type": "move", "uci": uci})
                ws.state(lambda f, ply=ply: f["ply"] == ply)
    with TestClient(create_app(settings)) as client:
        state = game_state(client, game["id"])
        assert state["moves"] == ["d2d4", "g8f6", "c2c4"] and state["name"] == "on postgres"
        with client.websocket_connect(game["ws"]) as raw:
            assert Socket(raw).recv()["role"] == "player"
