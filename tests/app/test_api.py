"""HTTP routes: health, limits, algorithms, creating and reading games, PGN, pages."""

from __future__ import annotations

import io
import re

import chess
import chess.pgn
import pytest
from fastapi.testclient import TestClient

from app.schemas import GameCreated, StateFrame
from engine.search.registry import DEFAULT_ALGORITHM, validate_params
from tests.app.conftest import game_state, new_game

KNIGHT_START = "nnnnnnnn/nnnnnnnn/8/8/8/8/NNNNNNNN/NNNNNNNN w - - 0 1"


def test_health_keeps_the_contract_status_and_reports_pool_and_database(
    client: TestClient,
) -> None:
    response = client.get("/api/health")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["pool"] == {"capacity": 2, "running": 0, "queued": 0}
    assert body["db"]["ok"] is True and body["db"]["backend"] == "sqlite"


def test_settings_publish_the_limits_the_server_enforces(client: TestClient) -> None:
    limits = client.get("/api/settings").json()
    assert limits["movetime_ms"] == {"default": 100, "min": 10, "max": 5000}
    assert limits["threads"]["max"] == 2
    assert limits["stats_hz"] == 20 and limits["ws_max_frame"] == 65536
    assert set(limits["humans"]) == {"white", "black", "none", "both"}


def test_server_status_reports_the_pool(client: TestClient) -> None:
    status = client.get("/api/server").json()
    assert status["pool"] == {"capacity": 2, "running": 0, "queued": 0}
    assert status["games"] == 0 and status["warm"] is True  # warm-up off in tests


@pytest.mark.parametrize("game", ["chess", "knight"])
def test_algorithms_list_every_algorithm_with_parameter_ranges(
    client: TestClient, game: str
) -> None:
    algorithms = client.get("/api/algorithms", params={"game": game}).json()
    assert {a["name"] for a in algorithms} == {"uct", "uct-minimax", "bfms", "alphabeta", "mcts"}
    for algo in algorithms:
        assert algo["params"], algo["name"]
        for p in algo["params"]:
            assert {"name", "default", "min", "max", "description", "type"} <= set(p)
            if p["type"] in ("int", "float"):
                assert p["min"] <= p["default"] <= p["max"]


def test_each_games_list_shows_the_parameters_a_search_of_that_game_starts_with(
    client: TestClient,
) -> None:
    listed = {}
    for game in ("chess", "knight"):
        for algo in client.get("/api/algorithms", params={"game": game}).json():
            shown = {p["name"]: p["default"] for p in algo["params"]}
            assert shown == validate_params(algo["name"], {}, game), (game, algo["name"])
            listed[game, algo["name"]] = shown
    assert any(listed["chess", name] != listed["knight", name] for _, name in listed)


def test_algorithms_refuse_an_unknown_game(client: TestClient) -> None:
    response = client.get("/api/algorithms", params={"game": "go"})
    assert response.status_code == 422
    assert response.json()["code"] == "bad_request"
    assert "game" in response.json()["message"]


def test_creating_a_game_returns_id_token_and_state(client: TestClient) -> None:
    response = client.post("/api/games", json={"game": "knight", "human": "white"})
    assert response.status_code == 201
    body = response.json()
    GameCreated.model_validate(body)
    assert re.fullmatch(r"[0-9a-f]{12}", body["id"])
    assert len(body["token"]) >= 32
    assert body["ws"] == f"/ws/games/{body['id']}?token={body['token']}"
    state = body["state"]
    assert state["fen"] == KNIGHT_START and state["moves"] == [] and state["result"] is None
    assert state["role"] == "player" and len(state["legal"]) == 40
    assert state["settings"]["algorithm"] == DEFAULT_ALGORITHM  # none was named
    # its parameters filled in, as a knight-chess search of it starts
    assert state["settings"]["params"] == validate_params(DEFAULT_ALGORITHM, {}, "knight")


def test_tokens_and_ids_differ_between_games(client: TestClient) -> None:
    a, b = new_game(client), new_game(client)
    assert a["id"] != b["id"] and a["token"] != b["token"]


def test_a_game_can_start_from_a_fen_with_engine_settings(client: TestClient) -> None:
    fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
    body = new_game(
        client,
        fen=fen,
        human="both",
        algorithm="bfms",
        params={},
        budget="iterations",
        iterations=300,
        seed=7,
    )
    state = game_state(client, body["id"])
    assert state["fen"] == fen and state["start_fen"] == fen
    s = state["settings"]
    assert (s["algorithm"], s["budget"], s["iterations"], s["seed"]) == (
        "bfms",
        "iterations",
        300,
        7,
    )


@pytest.mark.parametrize(
    ("body", "status", "code", "words"),
    [
        ({"fen": "not a fen"}, 400, "invalid_fen", "FEN"),
        ({"fen": "8/8/8/8/8/8/8/8 w - - 0 1"}, 400, "invalid_fen", "king"),
        ({"game": "knight", "fen": "4k3/8/8/8/8/8/8/4K3 w - - 0 1"}, 400, "invalid_fen", "knights"),
        ({"algorithm": "minimax9000"}, 400, "unknown_algorithm", "minimax9000"),
        ({"params": {"c": -3}}, 400, "bad_params", "c"),
        ({"params": {"bogus": 1}}, 400, "bad_params", "bogus"),
        ({"threads": 3}, 400, "bad_params", "threads"),
        ({"algorithm": "alphabeta", "threads": 2}, 400, "bad_params", "threads"),
        ({"movetime_ms": 999_999}, 400, "bad_params", "movetime_ms"),
        ({"game": "go"}, 422, "bad_request", "game"),
        ({"human": "robot"}, 422, "bad_request", "human"),
        ({"threads": "2"}, 422, "bad_request", "threads"),
        ({"colour": "white"}, 422, "bad_request", "colour"),
    ],
)
def test_creating_a_game_refuses_bad_input_naming_the_problem(
    client: TestClient, body: dict, status: int, code: str, words: str
) -> None:
    response = client.post("/api/games", json=body)
    assert response.status_code == status, response.text
    error = response.json()
    assert error["code"] == code
    assert words in error["message"]
    assert client.get("/api/server").json()["games"] == 0  # nothing was created


def test_malformed_json_body_is_refused(client: TestClient) -> None:
    response = client.post(
        "/api/games", content=b"{nope", headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 422
    assert response.json()["code"] == "bad_request"


def test_game_state_has_the_contract_fields(client: TestClient) -> None:
    body = new_game(client, human="both")
    state = game_state(client, body["id"])
    StateFrame.model_validate(state)
    for key in ("fen", "moves", "result", "settings"):
        assert key in state
    assert state["role"] == "spectator"  # HTTP readers never get the player role
    assert "token" not in state


def test_unknown_games_are_404_everywhere(client: TestClient) -> None:
    for path in ("/api/games/nope", "/api/games/nope/pgn", "/api/games/nope/positions"):
        response = client.get(path)
        assert response.status_code == 404
        assert response.json()["code"] == "not_found"


def test_pgn_parses_back_and_can_be_downloaded(client: TestClient) -> None:
    body = new_game(client, human="both", algorithm="uct", params={"c": 1.2})
    response = client.get(f"/api/games/{body['id']}/pgn")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/x-chess-pgn")
    assert response.headers["content-disposition"].startswith("inline")
    game = chess.pgn.read_game(io.StringIO(response.text))
    assert game is not None
    assert game.headers["Algorithm"] == "uct" and "c=1.2" in game.headers["AlgorithmParams"]
    download = client.get(f"/api/games/{body['id']}/pgn?download=1")
    assert download.headers["content-disposition"] == (
        f'attachment; filename="canopy-{body["id"]}.pgn"'
    )


def test_positions_list_every_fen_from_the_start(client: TestClient) -> None:
    body = new_game(client, human="both")
    fens = client.get(f"/api/games/{body['id']}/positions").json()["fens"]
    assert fens == [chess.STARTING_FEN]


def test_the_app_page_loads_modules_without_inline_script_or_style(client: TestClient) -> None:
    response = client.get("/")
    assert response.status_code == 200
    html = response.text
    assert '<script type="module" src="/static/js/main.js"></script>' in html
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), "inline script"
    assert not re.search(r"\sstyle=", html), "inline style attribute"
    assert not re.search(r"\son[a-z]+=", html), "inline event handler"
    assert "<style" not in html
    assert "cdn" not in html.lower()


def test_game_pages_carry_the_id_in_a_data_attribute(client: TestClient) -> None:
    body = new_game(client, human="both")
    html = client.get(body["url"]).text
    assert f'data-game-id="{body["id"]}"' in html
    missing = client.get("/games/doesnotexist")
    assert missing.status_code == 404
    assert 'data-missing="doesnotexist"' in missing.text


def test_page_escapes_what_comes_from_the_url(client: TestClient) -> None:
    response = client.get('/games/"><script>alert(1)</script>')
    assert "<script>alert(1)</script>" not in response.text


@pytest.mark.parametrize(
    "asset",
    [
        "/static/js/main.js",
        "/static/js/state.js",
        "/static/js/board.js",
        "/static/js/arrows.js",
        "/static/js/chessboard.js",
        "/static/js/panel.js",
        "/static/js/socket.js",
        "/static/css/app.css",
        "/static/vendor/chessground.js",
        "/static/vendor/chessground.base.css",
        "/static/vendor/knight-pink.svg",
        "/static/vendor/knight-black.svg",
    ],
)
def test_static_assets_are_served_locally(client: TestClient, asset: str) -> None:
    response = client.get(asset)
    assert response.status_code == 200, asset
    assert response.content
