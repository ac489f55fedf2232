"""Log lines carry the request and game ids of the work they describe, never stale ones."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest
from fastapi.testclient import TestClient

from app.logs import RedactTokens, game_id_var, request_id_var


def _records(caplog: pytest.LogCaptureFixture, prefix: str, timeout: float = 5.0) -> list:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        found = [r for r in caplog.records if r.getMessage().startswith(prefix)]
        if found:
            return found
        time.sleep(0.02)
    raise AssertionError(f"no log line starting {prefix!r}")


def test_the_signal_line_carries_no_request_id_from_the_request_it_interrupted(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="canopy.app")
    caplog.handler.addFilter(RedactTokens())  # the server's filter stamps the ids
    # A signal handler runs inside whatever the loop was doing; here, "a request".
    request_token = request_id_var.set("0123456789abcdef")
    game_token = game_id_var.set("somegame")
    try:
        client.app.state.on_signal()  # type: ignore[attr-defined]
    finally:
        request_id_var.reset(request_token)
        game_id_var.reset(game_token)
    (line,) = _records(caplog, "signal: stopped")
    assert line.request_id is None and line.game_id is None


def test_background_work_logs_under_its_own_game_and_no_request(client: TestClient) -> None:
    service = client.app.state.service  # type: ignore[attr-defined]

    async def spawn_from_a_request() -> tuple[str | None, str | None]:
        request_id_var.set("0123456789abcdef")
        game_id_var.set("game-a")  # e.g. game A frees a slot and game B is admitted
        seen: asyncio.Future[tuple[str | None, str | None]] = asyncio.Future()

        async def work() -> None:
            seen.set_result((request_id_var.get(), game_id_var.get()))

        service.spawn(work(), game_id="game-b")
        return await seen

    assert client.portal.call(spawn_from_a_request) == (None, "game-b")  # type: ignore[union-attr]
