"""Nothing acknowledged is lost: the real server, ``kill -9``, a restart on the same data.

A move counts as acknowledged once a ``state`` frame containing it reached a
client. The store commits every move before that frame is sent, so after a
SIGKILL at any moment the restarted server must have every acknowledged move
(it may have a few more: committed, but the frame was still on its way).
"""

from __future__ import annotations

import contextlib
import json
import random
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import connect

from tests.reliability.server import ServerProcess

ENV = {
    "CANOPY_THINK_MS": "60",
    "CANOPY_MIN_THINK_MS": "10",
    "CANOPY_ITERATIONS": "150",
    "CANOPY_MAX_SEARCHES": "2",
    "CANOPY_STATS_HZ": "5",
}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path, ENV)
    proc.start()
    yield proc
    proc.stop()


def recv_until(ws: Any, pred: Any, timeout: float = 30.0) -> dict[str, Any]:
    end = time.monotonic() + timeout
    while True:
        left = end - time.monotonic()
        if left <= 0:
            raise AssertionError("no matching frame in time")
        frame = json.loads(ws.recv(timeout=left))
        if pred(frame):
            return frame


def test_every_acknowledged_move_survives_kill_9_and_a_restart(server: ServerProcess) -> None:
    rng = random.Random(7)
    player = server.post(
        "/api/games",
        {
            "game": "chess",
            "human": "white",
            "budget": "iterations",
            "iterations": 150,
            "name": "restart <test>",
        },
    )
    selfplay = server.post(
        "/api/games",
        {"game": "knight", "human": "none", "movetime_ms": 60},  # ~15 plies a second
    )
    acked: list[str] = []
    uri = f"{server.ws_base}{player['ws']}"
    with connect(uri, max_size=2**20) as ws:
        state = recv_until(ws, lambda f: f["type"] == "state")
        for _ in range(5):  # five full moves: ours, acknowledged, then the engine's reply
            move = rng.choice(state["legal"])
            ws.send(json.dumps({"type": "move", "uci": move}))
            n = len(state["moves"]) + 2
            state = recv_until(ws, lambda f, n=n: f["type"] == "state" and len(f["moves"]) >= n)
            acked = state["moves"]
        # One more of ours, and the kill right after its acknowledgement (the engine thinks).
        ws.send(json.dumps({"type": "move", "uci": rng.choice(state["legal"])}))
        n = len(acked) + 1
        state = recv_until(ws, lambda f: f["type"] == "state" and len(f["moves"]) >= n)
        acked = state["moves"]

        # Meanwhile the engine has been playing itself; watch and kill mid-game.
        seen: list[str] = []
        with connect(f"{server.ws_base}/ws/games/{selfplay['id']}", max_size=2**20) as watch:
            end = time.monotonic() + 3.0
            while time.monotonic() < end:
                try:
                    frame = json.loads(watch.recv(timeout=max(0.01, end - time.monotonic())))
                except TimeoutError:
                    break
                if frame["type"] == "state":
                    seen = frame["moves"]
                    if frame["result"]:
                        break  # over already (a fast machine): kill now all the same
            server.kill()
    assert len(acked) == 11 and len(seen) >= 4, (acked, seen)

    t0 = time.monotonic()
    server.start()
    restart_s = time.monotonic() - t0
    after = server.get(f"/api/games/{player['id']}")
    assert after["moves"][: len(acked)] == acked
    assert after["name"] == "restart <test>"
    assert after["settings"]["iterations"] == 150
    restored = server.get(f"/api/games/{selfplay['id']}")["moves"]
    assert restored[: len(seen)] == seen
    print(
        f"restart: {len(acked)} acknowledged plies of the played game and {len(seen)} of the "
        f"self-play game seen before kill -9; after the restart ({restart_s:.1f} s to healthy) "
        f"the store has {len(after['moves'])} and {len(restored)}"
    )
    listed = {g["id"]: g for g in server.get("/api/games")["games"]}
    assert listed[player["id"]]["ply"] >= len(acked)

    # The creator's token still authorises moves after the restart; the game goes on.
    with connect(f"{server.ws_base}{player['ws']}", max_size=2**20) as ws:
        state = recv_until(ws, lambda f: f["type"] == "state")
        assert state["role"] == "player"
        if state["turn"] != "white":  # the engine's reply, if it was still thinking
            state = recv_until(ws, lambda f: f["type"] == "state" and f["turn"] == "white")
        before = len(state["moves"])
        ws.send(json.dumps({"type": "move", "uci": state["legal"][0]}))
        state = recv_until(ws, lambda f: f["type"] == "state" and len(f["moves"]) > before)
        assert state["moves"][: len(acked)] == acked
    log = server.log()
    assert player["token"] not in log and selfplay["token"] not in log
    assert "token=[redacted]" in log  # uvicorn's websocket line, with the token rewritten


def test_sigterm_stops_searches_at_once_and_exits_cleanly(server: ServerProcess) -> None:
    games = [server.post("/api/games", {"human": "none", "movetime_ms": 5_000}) for _ in range(3)]
    with contextlib.ExitStack() as stack:
        sockets = [
            stack.enter_context(connect(f"{server.ws_base}{g['ws']}", max_size=2**20))
            for g in games
        ]
        for ws in sockets:  # wait until each game is running or queued
            recv_until(ws, lambda f: f["type"] == "state" and f["search"]["status"] != "idle")
        health = server.get("/api/health")
        assert health["pool"]["running"] == 2 and health["pool"]["queued"] == 1
        t0 = time.monotonic()
        code = server.terminate(timeout=15)
        seconds = time.monotonic() - t0
    assert code == 0
    lines = [json.loads(line) for line in server.log().splitlines() if line.startswith("{")]
    stopped = [r for r in lines if r["msg"].startswith("signal: stopped")]
    assert stopped, [r["msg"] for r in lines[-10:]]
    ms = float(stopped[0]["msg"].split(" in ")[1].split()[0])
    assert "stopped 2 running searches" in stopped[0]["msg"]
    assert ms < 1000, stopped[0]["msg"]
    assert any(r["msg"].startswith("shut down cleanly") for r in lines)
    assert seconds < 10


@pytest.mark.skipif(not hasattr(signal, "SIGUSR1"), reason="no SIGUSR1 on this platform")
def test_sigusr1_writes_every_threads_stack_to_the_log_and_the_server_goes_on(
    server: ServerProcess,
) -> None:
    assert server.proc is not None
    server.proc.send_signal(signal.SIGUSR1)

    def dumped() -> bool:  # the current thread's stack comes last: the whole dump is there
        log = server.log()
        return "Current thread" in log and "in serve" in log

    deadline = time.monotonic() + 10
    while not dumped() and time.monotonic() < deadline:
        time.sleep(0.1)
    log = server.log()
    assert "Current thread" in log and "in serve" in log  # the event loop's own stack
    assert log.count("most recent call first") >= 2  # and the other threads'
    assert server.get("/api/health")["status"] == "ok"  # a dump is not a stop
