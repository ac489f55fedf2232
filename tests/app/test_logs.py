"""Log lines carry the request and game ids of the work they describe, never stale ones."""

from __future__ import annotations

import asyncio
import json
import logging
import time

import pytest
from fastapi.testclient import TestClient

from app.logs import (
    ConsoleFormatter,
    RedactTokens,
    game_id_var,
    request_id_var,
    stream_formatter,
)
from app.settings import Settings


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


class _Stream:
    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def _record(message: str, game_id: str | None = None) -> logging.LogRecord:
    record = logging.LogRecord("canopy.test", logging.INFO, __file__, 1, message, None, None)
    record.request_id = "0123456789abcdef"
    record.game_id = game_id
    return record


def test_auto_format_writes_json_lines_when_stderr_is_not_a_terminal() -> None:
    line = stream_formatter("auto", _Stream(tty=False)).format(_record("hello", "g1"))
    assert json.loads(line) == {
        "ts": json.loads(line)["ts"],
        "level": "info",
        "logger": "canopy.test",
        "msg": "hello",
        "request_id": "0123456789abcdef",
        "game_id": "g1",
    }


def test_auto_format_writes_readable_lines_on_a_terminal() -> None:
    formatter = stream_formatter("auto", _Stream(tty=True))
    line = formatter.format(_record('127.0.0.1:5000 - "GET / HTTP/1.1" 200', "g1"))
    assert not line.startswith("{")
    assert "INFO" in line and '"GET / HTTP/1.1" 200' in line and "game=g1" in line
    assert "0123456789abcdef" not in line  # the request id is for the JSON logs


def test_json_format_is_kept_even_on_a_terminal() -> None:
    line = stream_formatter("json", _Stream(tty=True)).format(_record("hello"))
    assert json.loads(line)["msg"] == "hello"


def test_a_console_line_carries_no_token(caplog: pytest.LogCaptureFixture) -> None:
    record = _record("connect /ws/games/abc?token=s3cret")
    RedactTokens().filter(record)
    line = ConsoleFormatter(colour=False).format(record)
    assert "s3cret" not in line and "token=[redacted]" in line


def test_the_log_format_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CANOPY_LOG_FORMAT", "json")
    assert Settings().log_format == "json"
