"""POST /api/analyses and GET /api/analyses/{id}: a game played elsewhere, analysed move by move.

An analysis is stored as a game with its searches, runs in the background on the
search pool, reports its progress, survives a restart and comes back with every ply
in the review's shape plus its mark and the engine's better move. Every refusal
names its reason (a bad PGN its line) and stores nothing.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from engine.rules.games import KNIGHT_GAME

SHORT = '[Event "Club"]\n[White "Ann"]\n[Black "Bob"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n'
REVIEW_PLY = {"ply", "uci", "san", "by", "fen", "search", "eval"}
SEARCH = {"algorithm", "params", "iterations", "ms", "nodes", "moves"}
SEARCH_MOVE = {"uci", "san", "visits", "share", "q", "eval", "pv"}


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as c:
        yield c


def start(client: TestClient, pgn: str = SHORT, **body: Any) -> str:
    response = client.post("/api/analyses", json={"pgn": pgn, "movetime_ms": 20, **body})
    assert response.status_code == 201, response.text
    assert response.json()["url"] == f"/games/{response.json()['id']}"
    return str(response.json()["id"])


def finished(client: TestClient, aid: str, timeout: float = 240.0) -> dict[str, Any]:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        body = client.get(f"/api/analyses/{aid}").json()
        assert body["status"] != "failed", body["error"]
        if body["status"] == "done":
            return dict(body)
        time.sleep(0.1)
    raise AssertionError(f"analysis {aid} did not finish in {timeout} s")


def nothing_stored(client: TestClient) -> None:
    assert client.get("/api/games").json()["games"] == []
    assert client.get("/api/analyses").json()["analyses"] == []


# ---------------------------------------------------------------- an analysis


def test_an_analysis_reports_every_ply_in_the_review_shape_with_marks(client: TestClient) -> None:
    aid = start(client)
    body = finished(client, aid)
    assert body["id"] == aid and body["done"] == body["total"] == 7 and body["game"] == "chess"
    assert body["headers"]["White"] == "Ann" and body["notes"] == []
    assert [p["san"] for p in body["plies"]] == ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]
    for ply in body["plies"]:
        assert set(ply) >= REVIEW_PLY | {"mark", "best", "loss"}
        assert ply["by"] == "human" and ply["mark"] in (None, "inaccuracy", "mistake", "blunder")
        search = ply["search"]
        assert set(search) >= SEARCH and search["algorithm"] == "mcts" and search["iterations"] > 0
        assert set(search["moves"][0]) >= SEARCH_MOVE
        assert ply["best"] == search["bestmove"] and ply["uci"] in {
            m["uci"] for m in search["moves"]
        }
        assert 0.0 <= ply["eval"] <= 1.0 and ply["loss"] >= 0.0
    assert set(body["summary"]) == {"white", "black"}
    assert body["summary"]["white"]["moves"] == 3
    assert body["thresholds"] == {"inaccuracy": 0.07, "mistake": 0.14, "blunder": 0.25}
    later = client.get(f"/api/analyses/{aid}", params={"from": 5}).json()
    assert [p["ply"] for p in later["plies"]] == [5, 6]


def test_an_analysis_is_a_game_listed_linked_and_reviewed(client: TestClient) -> None:
    aid = start(client)
    finished(client, aid)
    games = client.get("/api/games").json()["games"]
    assert [g["id"] for g in games] == [aid] and games[0]["name"] == "Analysis: Ann – Bob"
    assert games[0]["human"] == "both" and games[0]["ply"] == 6
    listed = client.get("/api/analyses").json()
    assert listed["analyses"][0]["id"] == aid and listed["analyses"][0]["status"] == "done"
    assert listed["limits"]["max_plies"] == 300 and listed["limits"]["max_analyses"] == 2
    page = client.get(f"/games/{aid}")
    assert page.status_code == 200 and 'data-analysis="1"' in page.text
    assert 'data-analysis=""' in client.get(f"/games/{new_game_id(client)}").text
    review = client.get(f"/api/games/{aid}/review").json()
    assert all(p["search"] is not None for p in review["plies"])  # the searches are the game's
    pgn = client.get(f"/api/games/{aid}/pgn").text
    assert "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6" in pgn


def new_game_id(client: TestClient) -> str:
    response = client.post("/api/games", json={"human": "both"})
    assert response.status_code == 201
    return str(response.json()["id"])


def test_knight_chess_and_a_fen_start_are_analysed_in_their_own_game(client: TestClient) -> None:
    knight = start(client, '[Variant "Knight Chess"]\n\n1. Nb1c3 Nb8c6 2. Ng1f3 *')
    body = finished(client, knight)
    assert body["game"] == "knight" and body["start_fen"] == KNIGHT_GAME.start_fen
    assert len(body["plies"]) == 3
    fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
    ending = finished(client, start(client, f'[SetUp "1"]\n[FEN "{fen}"]\n\n1. e4 Kd7 *'))
    assert ending["start_fen"] == fen and [p["san"] for p in ending["plies"]] == ["e4", "Kd7"]


def test_several_games_analyse_the_first_and_say_so(client: TestClient) -> None:
    pgn = SHORT + '\n[Event "Second"]\n\n1. d4 d5 *\n'
    body = finished(client, start(client, pgn))
    assert body["notes"] == ["The PGN holds 2 games; the first is analysed."]
    assert len(body["plies"]) == 6


def test_the_analysis_page_shows_player_names_escaped(client: TestClient) -> None:
    pgn = '[White "<script>alert(1)</script>"]\n[Black "B&B"]\n\n1. e4 *'
    aid = start(client, pgn)
    finished(client, aid)
    for url in ("/analysis", "/games"):
        text = client.get(url).text
        assert "<script>alert(1)</script>" not in text
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text


# ---------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("pgn", "line", "words"),
    [
        (
            '[Event "x"]\n[White "A"]\n\n1. e4 e5\n2. Qh7 e6 *',
            5,
            "'Qh7' (White's move 2) is not legal",
        ),
        ('[Event "x"\n\n1. e4', 1, "malformed tag pair"),
        ("1. e4 e5 {unclosed\n2. Nf3", 1, "never closed"),
        ("", None, None),  # an empty string is refused by the schema (below)
    ],
)
def test_a_bad_pgn_is_refused_with_its_line_and_nothing_is_stored(
    client: TestClient, pgn: str, line: int | None, words: str | None
) -> None:
    response = client.post("/api/analyses", json={"pgn": pgn})
    assert 400 <= response.status_code < 500
    error = response.json()["error"]
    if line is None:
        assert error["code"] == "bad_request" and "pgn" in error["message"]
    else:
        assert error["code"] == "bad_pgn" and error["line"] == line
        assert error["message"].startswith(f"line {line}: ") and words in error["message"]
    assert response.json()["code"] == error["code"]  # as every other route's body
    nothing_stored(client)


def test_a_game_longer_than_the_limit_is_refused(tmp_path: Path, settings: Settings) -> None:
    settings = settings.model_copy(update={"analysis_max_plies": 4})
    with TestClient(create_app(settings)) as client:
        response = client.post("/api/analyses", json={"pgn": SHORT})
        assert response.status_code == 400
        error = response.json()["error"]
        assert error["code"] == "too_many_plies"
        assert "longer than 4 plies" in error["message"]
        assert "CANOPY_ANALYSIS_MAX_PLIES" in error["message"]
        nothing_stored(client)


def test_more_analyses_than_the_server_runs_at_once_are_refused(settings: Settings) -> None:
    settings = settings.model_copy(update={"max_analyses": 1})
    with TestClient(create_app(settings)) as client:
        long = start(client, SHORT, movetime_ms=2000)
        response = client.post("/api/analyses", json={"pgn": SHORT, "movetime_ms": 20})
        assert response.status_code == 503 and response.headers["Retry-After"]
        error = response.json()["error"]
        assert error["code"] == "too_many_analyses" and "CANOPY_MAX_ANALYSES=1" in error["message"]
        assert [a["id"] for a in client.get("/api/analyses").json()["analyses"]] == [long]
        assert len(client.get("/api/games").json()["games"]) == 1


@pytest.mark.parametrize(
    ("body", "status", "code", "words"),
    [
        ({"algorithm": "minimax"}, 400, "unknown_algorithm", "unknown algorithm 'minimax'"),
        ({"algorithm": "uct", "params": {"c": 99}}, 400, "bad_params", "parameter 'c'"),
        ({"params": {"nonsense": 1}}, 400, "bad_params", "nonsense"),
        ({"movetime_ms": 5}, 400, "bad_params", "movetime_ms must lie in 10..10000"),
        ({"movetime_ms": 60_000}, 400, "bad_params", "movetime_ms must lie in 10..10000"),
        ({"movetime_ms": "fast"}, 422, "bad_request", "movetime_ms"),
        ({"movetime_ms": 0}, 422, "bad_request", "movetime_ms"),
        ({"pgn": 42}, 422, "bad_request", "pgn"),
        ({"depth": 3}, 422, "bad_request", "unknown field 'depth'"),
    ],
)
def test_bad_settings_are_refused_naming_the_field_and_nothing_is_stored(
    client: TestClient, body: dict[str, Any], status: int, code: str, words: str
) -> None:
    response = client.post("/api/analyses", json={"pgn": SHORT, **body})
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code and words in error["message"]
    nothing_stored(client)


def test_a_body_that_is_not_json_is_refused(client: TestClient) -> None:
    response = client.post(
        "/api/analyses", content=b"1. e4 e5", headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 400 and response.json()["error"]["code"] == "bad_request"
    nothing_stored(client)


def test_an_unknown_analysis_is_not_found(client: TestClient) -> None:
    for aid in ("0123456789ab", "not-an-id", new_game_id(client)):  # a plain game is none
        response = client.get(f"/api/analyses/{aid}")
        assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"


# ---------------------------------------------------------------- restarts


def test_a_restart_resumes_an_unfinished_analysis_where_it_stopped(settings: Settings) -> None:
    game = "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 *"
    with TestClient(create_app(settings)) as client:
        aid = start(client, game, movetime_ms=150)
        end = time.monotonic() + 120
        while client.get(f"/api/analyses/{aid}").json()["done"] < 3:
            assert time.monotonic() < end, "no progress"
            time.sleep(0.05)
        before = client.get(f"/api/analyses/{aid}").json()
    assert 3 <= before["done"] < before["total"] == 15
    kept = [p["search"] for p in before["plies"][: before["done"]]]

    with TestClient(create_app(settings)) as client:  # the same database: a restart
        after = finished(client, aid)
    assert after["done"] == after["total"] == 15
    assert [p["search"] for p in after["plies"][: before["done"]]] == kept  # not searched again
    assert all(p["search"] is not None for p in after["plies"])
