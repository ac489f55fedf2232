"""Fixtures for the app tests: a TestClient around a fresh app, and a websocket
helper that never hangs (every receive has a timeout) and validates each frame
the server sends against the pydantic models of app/schemas.py."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.schemas import SERVER_FRAMES
from app.settings import Settings

Frame = dict[str, Any]


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels() -> None:
    """Compile (or load from numba's cache) every kernel once, before the first app test.

    The test servers run with ``warmup=False`` so each test starts at once; in a fresh
    clone that left the first test to use a kernel paying its compile (tens of seconds
    for a step of bfms or mcts on a loaded machine) inside a websocket receive's timeout.
    The compile happens once either way; here it is outside every timeout.
    """
    from engine.warm import warm

    warm()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        data_dir=tmp_path,  # the game database (SQLite) of this test only
        warmup=False,
        think_ms=100,
        min_think_ms=10,
        max_think_ms=5_000,
        iterations=500,
        max_iterations=1_000_000,
        analysis_ms=20_000,
        max_searches=2,
        max_threads=2,
        stats_hz=20,
        node_budget=200_000,
    )


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as c:
        yield c


def new_game(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def game_state(client: TestClient, gid: str) -> dict[str, Any]:
    response = client.get(f"/api/games/{gid}")
    assert response.status_code == 200, response.text
    return response.json()


class Socket:
    """A websocket test session with timeouts and schema checks on every frame."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.seen: list[Frame] = []

    def send(self, frame: Any) -> None:
        self.ws.send_text(frame if isinstance(frame, str) else json.dumps(frame))

    def recv(self, timeout: float = 10.0) -> Frame:
        async def receive() -> Any:
            with anyio.fail_after(timeout):
                return await self.ws._send_rx.receive()

        message = self.ws.portal.call(receive)
        self.ws._raise_on_close(message)
        text = message["text"]
        frame = json.loads(text)
        model = SERVER_FRAMES[frame["type"]]
        model.model_validate(frame)  # every frame the server sends matches its model
        frame["_bytes"] = len(text.encode())
        self.seen.append(frame)
        return frame

    def until(self, pred: Callable[[Frame], bool], timeout: float = 15.0) -> Frame:
        """Receive until a frame satisfies ``pred`` (fails after ``timeout`` seconds)."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                kinds = [f["type"] for f in self.seen[-10:]]
                raise AssertionError(f"no matching frame within {timeout}s; last: {kinds}")
            frame = self.recv(timeout=left)
            if pred(frame):
                return frame

    def error(self, timeout: float = 10.0) -> Frame:
        return self.until(lambda f: f["type"] == "error", timeout)

    def state(self, pred: Callable[[Frame], bool] = lambda f: True, timeout: float = 15.0) -> Frame:
        return self.until(lambda f: f["type"] == "state" and pred(f), timeout)


@pytest.fixture
def connect(client: TestClient) -> Iterator[Callable[..., Socket]]:
    """``connect(game, token=True)``: a Socket on the game's websocket (closed afterwards)."""
    opened: list[Any] = []

    def _connect(game: dict[str, Any], token: bool | str = True) -> Socket:
        if token is True:
            url = game["ws"]
        elif token is False:
            url = f"/ws/games/{game['id']}"
        else:
            url = f"/ws/games/{game['id']}?token={token}"
        cm = client.websocket_connect(url)
        ws = cm.__enter__()
        opened.append(cm)
        return Socket(ws)

    yield _connect
    for cm in reversed(opened):
        with contextlib.suppress(Exception):  # the server may have closed it (1009, 4404)
            cm.__exit__(None, None, None)
