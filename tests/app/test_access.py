"""Who may do what: the creator's token moves and changes settings; everyone else watches."""

from __future__ import annotations

import logging

import pytest
from fastapi.testclient import TestClient

from app.logs import RedactTokens, redact
from tests.app.conftest import game_state, new_game

WRITES = [
    {"type": "move", "uci": "e2e4"},
    {"type": "search", "action": "start"},
    {"type": "search", "action": "step"},
    {"type": "settings", "algorithm": "bfms"},
    {"type": "settings", "human": "black"},
    {"type": "settings", "params": {"c": 3.0}},
    {"type": "undo"},
    {"type": "setup", "fen": None},
    {"type": "go"},
]


def test_a_spectator_can_neither_move_nor_change_settings(client: TestClient, connect) -> None:
    game = new_game(client, human="white")
    player, spectator = connect(game), connect(game, token=False)
    assert player.recv()["role"] == "player"
    assert spectator.recv()["role"] == "spectator"
    before = game_state(client, game["id"])
    for frame in WRITES:
        spectator.send(frame)
        error = spectator.error()
        assert (error["code"], error["request"]) == ("forbidden", frame["type"])
    assert game_state(client, game["id"]) == before
    player.send({"type": "settings", "algorithm": "bfms"})  # the creator may
    changed = player.state(lambda f: f["settings"]["algorithm"] == "bfms")
    assert changed["role"] == "player"
    spectator.state(lambda f: f["settings"]["algorithm"] == "bfms")  # and spectators see it


def test_another_games_token_does_not_work(client: TestClient, connect) -> None:
    mine, theirs = new_game(client, human="white"), new_game(client, human="white")
    ws = connect(theirs, token=mine["token"])
    assert ws.recv()["role"] == "spectator"
    before = game_state(client, theirs["id"])
    for frame in WRITES:
        ws.send(frame)
        assert ws.error()["code"] == "forbidden"
    assert game_state(client, theirs["id"]) == before


@pytest.mark.parametrize(
    "token",
    ["", "x", "A" * 32, "A" * 5000, "%00", "../../etc/passwd", "' OR 1=1 --"],
)
def test_wrong_or_odd_tokens_give_a_read_only_socket(client: TestClient, connect, token) -> None:
    game = new_game(client, human="white")
    ws = connect(game, token=token)
    assert ws.recv()["role"] == "spectator"
    ws.send({"type": "move", "uci": "e2e4"})
    assert ws.error()["code"] == "forbidden"


def test_a_prefix_of_the_token_does_not_work(client: TestClient, connect) -> None:
    game = new_game(client, human="white")
    ws = connect(game, token=game["token"][:-1])
    assert ws.recv()["role"] == "spectator"


def test_tokens_are_compared_as_hashes_in_constant_time(client: TestClient) -> None:
    service = client.app.state.service  # type: ignore[attr-defined]
    game = new_game(client, human="white")
    live = service.get(game["id"])
    assert service.check_token(live, game["token"])
    assert not service.check_token(live, game["token"].upper())
    assert not service.check_token(live, None)
    import inspect

    source = inspect.getsource(type(service).check_token)
    assert "compare_digest" in source  # constant time; a plain == would leak the prefix


def test_the_state_api_and_pgn_never_reveal_the_token(client: TestClient) -> None:
    game = new_game(client, human="white", name="tokens")
    for path in (
        f"/api/games/{game['id']}",
        f"/api/games/{game['id']}/pgn",
        f"/api/games/{game['id']}/positions",
        "/api/games",
        f"/games/{game['id']}",
        "/games",
    ):
        response = client.get(path)
        assert response.status_code == 200, path
        assert game["token"] not in response.text, path


def test_log_lines_never_carry_a_token() -> None:
    token = "s3cr3t-T0ken_value"
    record = logging.LogRecord(
        "uvicorn.error",
        logging.INFO,
        __file__,
        1,
        '%s - "WebSocket %s" [accepted]',
        ("127.0.0.1:5", f"/ws/games/abc?token={token}"),
        None,
    )
    assert RedactTokens().filter(record)
    assert token not in record.getMessage()
    assert "token=[redacted]" in record.getMessage()
    assert token not in redact(f'{{"token": "{token}", "id": "x"}}')
    assert token not in redact(f"url /ws/games/x?a=1&token={token}&b=2")
