"""Limits: messages per second, new games per minute, open sockets; each one refuses
politely (an error, the connection kept where that makes sense) and is configurable."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError
from starlette.websockets import WebSocketDisconnect

from app.limits import TokenBucket, WindowLimiter
from app.main import create_app
from app.settings import Settings
from tests.app.conftest import Socket, new_game


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_token_bucket_allows_bursts_then_the_rate() -> None:
    clock = FakeClock()
    bucket = TokenBucket(rate=30, burst=10, clock=clock)
    assert [bucket.allow() for _ in range(12)] == [True] * 10 + [False] * 2
    clock.now += 0.101  # three tokens back
    assert [bucket.allow() for _ in range(4)] == [True] * 3 + [False]
    clock.now += 60  # never more than the burst
    assert sum(bucket.allow() for _ in range(20)) == 10
    with pytest.raises(ValueError, match="rate"):
        TokenBucket(rate=0, burst=1)


def test_the_window_limiter_counts_per_key_and_forgets_old_events() -> None:
    clock = FakeClock()
    limiter = WindowLimiter(limit=2, window=60, max_keys=3, clock=clock)
    assert [limiter.allow("a") for _ in range(3)] == [True, True, False]
    assert limiter.allow("b")
    clock.now += 61
    assert limiter.allow("a")
    for key in "cdef":
        limiter.allow(key)
    assert len(limiter._events) == 3  # bounded memory under many addresses


@contextlib.contextmanager
def app_with(settings: Settings, **changes: object) -> Iterator[TestClient]:
    with TestClient(create_app(settings.model_copy(update=changes))) as client:
        yield client


def test_messages_beyond_the_rate_get_rate_limited_errors_and_the_socket_stays_open(
    settings: Settings,
) -> None:
    with app_with(settings, ws_rate=30.0, ws_burst=30) as client:
        game = new_game(client, human="white")
        with client.websocket_connect(game["ws"]) as raw:
            ws = Socket(raw)
            ws.recv()
            for i in range(100):
                ws.send({"type": "ping", "t": i})
            replies = [ws.until(lambda f: f["type"] in ("pong", "error")) for _ in range(64)]
            # (the reply queue holds 64; the rest of the answers were superseded)
            codes = {f.get("code") for f in replies if f["type"] == "error"}
            assert codes == {"rate_limited"}
            pongs = [f for f in replies if f["type"] == "pong"]
            assert 30 <= len(pongs) <= 40, len(pongs)  # the burst, plus what refilled
            time.sleep(0.2)
            ws.send({"type": "ping", "t": "after"})  # still open and served
            assert ws.until(lambda f: f.get("t") == "after")["type"] == "pong"


@pytest.mark.parametrize(
    ("field", "value"), [("stats_hz", 0.01), ("stats_hz", 61), ("tree_nodes", 501)]
)
def test_streaming_settings_out_of_range_are_refused_at_start(field: str, value: float) -> None:
    # A rate so low that snapshots would be hours apart, or a default tree larger than
    # the tree view's 500 nodes, is refused when the server starts, naming the setting.
    with pytest.raises(ValidationError, match=field):
        Settings(**{field: value})


def test_new_games_per_minute_per_address_are_limited(settings: Settings) -> None:
    with app_with(settings, games_per_minute=3) as client:
        for _ in range(3):
            new_game(client, human="white")
        refused = client.post("/api/games", json={"human": "white"})
        assert refused.status_code == 429
        assert refused.json()["code"] == "rate_limited"
        assert refused.headers["retry-after"] == "60"


def test_sockets_beyond_the_server_limit_are_told_to_come_back_later(
    settings: Settings,
) -> None:
    with app_with(settings, max_connections=2) as client:
        game = new_game(client, human="white")
        with client.websocket_connect(game["ws"]) as a, client.websocket_connect(game["ws"]) as b:
            Socket(a).recv(), Socket(b).recv()
            with client.websocket_connect(game["ws"]) as raw:
                third = Socket(raw)
                assert third.recv()["code"] == "too_many_connections"
                with pytest.raises(WebSocketDisconnect) as closed:
                    third.recv()
                assert closed.value.code == 1013
            assert client.get("/api/health").json()["connections"] == 2
        with client.websocket_connect(game["ws"]) as raw:  # room again
            assert Socket(raw).recv()["type"] == "state"


def test_think_time_beyond_the_maximum_is_refused(client: TestClient) -> None:
    response = client.post("/api/games", json={"movetime_ms": 5_001})
    assert response.status_code == 400
    assert "movetime_ms" in response.json()["message"]


def test_request_bodies_over_the_limit_are_refused_with_413(settings: Settings) -> None:
    with app_with(settings, http_max_body=2048) as client:
        big = b'{"name": "' + b"x" * 5000 + b'"}'
        response = client.post(
            "/api/games", content=big, headers={"Content-Type": "application/json"}
        )
        assert response.status_code == 413
        assert response.json()["code"] == "too_large"

        def chunks():  # no Content-Length: the body is cut off as it streams in
            for _ in range(10):
                yield b"x" * 1000

        response = client.post("/api/games", content=chunks())
        assert response.status_code == 413
        assert client.get("/api/health").json()["status"] == "ok"
        assert new_game(client, human="white")["id"]  # normal bodies still pass
