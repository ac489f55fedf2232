"""The learned evaluation's routes: ``GET /api/learning``, ``POST /api/evaluations``, ``/learning``.

The weights come through the :func:`app.routes.learning.learned_weights` dependency; the
tests override it with weights made here (both games), so they need no trained file and
no recompile of the baked-in kernels.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.routes.learning import learned_weights
from app.settings import Settings
from engine.eval.compare import static_evaluations
from engine.eval.learned_weights import (
    ENV_VAR,
    ChessNetWeights,
    LearnedWeights,
    digest,
    load_weights,
    save_weights,
    shipped_path,
)
from engine.learn.chessnet import ChessModel
from engine.learn.ntuple import Model, tuple_squares
from engine.learn.report import learning_report

KNIGHT_START = "nnnnnnnn/nnnnnnnn/8/8/8/8/NNNNNNNN/NNNNNNNN w - - 0 1"
MISSING = "learned weights file /nowhere/knight.npz is missing; train them"
CHESS_MISSING = "learned weights file /nowhere/chess.npz is missing; train them"
CHESS_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def gate(number: int, opponent: str, w: int, d: int, lose: int, accepted: bool) -> dict:
    return {"number": number, "games": 20, "positions": 900, "fit_loss": 0.5,
            "holdout_loss": 0.5, "holdout_loss_best": 0.6, "gate_wins": w, "gate_draws": d,
            "gate_losses": lose, "score": 0.5, "elo": 0.0, "accepted": accepted,
            "opponent": opponent, "seconds": 60.0}  # fmt: skip


def trained() -> LearnedWeights:
    model = Model(tuple_squares("pst"))
    theta = np.random.default_rng(7).normal(scale=0.2, size=model.size)
    meta = {"generations": [gate(1, "hand", 6, 8, 2, True), gate(2, "gen-001", 3, 10, 3, False)],
            "seconds": 120.0}  # fmt: skip
    return model.unpack(theta, "canopy train --game knight --games 20 --out <b>x</b>", meta)


def trained_chess() -> ChessNetWeights:
    model = ChessModel(8)
    theta = model.start() + np.random.default_rng(8).normal(scale=0.3, size=model.size)
    meta = {"generations": [gate(1, "hand", 5, 12, 3, True), gate(2, "gen-001", 4, 10, 6, False)],
            "seconds": 300.0, "generation": 2}  # fmt: skip
    return model.unpack(theta, "canopy train --game chess --games 20 --out c", meta)


@pytest.fixture
def learned_client(settings: Settings) -> Iterator[TestClient]:
    """An app whose learned weights are :func:`trained`'s and :func:`trained_chess`'s."""
    app = create_app(settings)
    weights = trained()
    chess_weights = trained_chess()

    async def override() -> dict:
        return {"chess": (chess_weights, ""), "knight": (weights, "")}

    app.dependency_overrides[learned_weights] = override
    with TestClient(app) as c:
        yield c


@pytest.fixture
def bare_client(settings: Settings) -> Iterator[TestClient]:
    """An app with no learned weights at all (as if the shipped knight file were lost)."""
    app = create_app(settings)

    async def override() -> dict:
        return {"chess": (None, CHESS_MISSING), "knight": (None, MISSING)}

    app.dependency_overrides[learned_weights] = override
    with TestClient(app) as c:
        yield c


def test_learning_reports_the_curve_the_command_and_the_square_values(
    learned_client: TestClient,
) -> None:
    body = learned_client.get("/api/learning?game=knight").json()
    assert body["available"] is True and body["message"] is None
    assert body["command"].startswith("canopy train --game knight")
    curve = body["curve"]
    assert [p["generation"] for p in curve["points"]] == [1, 2]
    assert curve["games"] == 40 and curve["gate_games"] == 32 and curve["seconds"] == 120.0
    first = curve["points"][0]
    assert first["low"] < first["elo"] < first["high"] and first["accepted"] is True
    assert len(body["squares"]["middlegame"]["own"]) == 64
    assert set(body["squares"]) == {"middlegame", "endgame"}
    # No generation in the file's meta: the view cannot say which one it is.
    assert body["generation"] is None and body["kept"] is None and body["note"] is None


def test_without_weights_learning_says_why_and_how_to_train(bare_client: TestClient) -> None:
    body = bare_client.get("/api/learning").json()
    assert body["available"] is False and body["curve"] is None and body["squares"] is None
    assert body["message"] == MISSING
    assert "Canopy ships learned knight-chess weights" in body["reason"]
    assert "could not be loaded here" in body["reason"]
    assert body["how_to"]["train"].startswith("canopy train --game knight")
    assert body["how_to"]["serve"].startswith("CANOPY_LEARNED_WEIGHTS=")


def test_chess_without_weights_says_why_and_how_to_train_them(bare_client: TestClient) -> None:
    body = bare_client.get("/api/learning?game=chess").json()
    assert body["available"] is False and body["message"] == CHESS_MISSING
    assert "Canopy ships learned chess weights" in body["reason"]
    assert "the default stays the hand evaluation" in body["reason"]
    assert body["note"] is None and body["generation"] is None
    assert body["how_to"]["train"].startswith("canopy train --game chess")
    assert (
        "--engine mcts:eval=learned --engine mcts:eval=hand --movetime 300"
        in (body["how_to"]["match"])
    )


def test_chess_learning_reports_the_curve_and_each_features_weight(
    learned_client: TestClient,
) -> None:
    body = learned_client.get("/api/learning?game=chess").json()
    assert body["available"] is True and body["hidden"] == 8 and body["squares"] is None
    assert [p["generation"] for p in body["curve"]["points"]] == [1, 2]
    # The file says it is generation 2, whose gating match did not keep it; the measured
    # note of the shipped chess file is not about these made-up weights.
    assert body["generation"] == 2 and body["kept"] is False and body["note"] is None
    table = body["features"]
    assert table["features"][0] == "pawn" and len(table["features"]) == 22
    assert len(table["hand"]["middlegame"]) == len(table["learned"]["endgame"]) == 22


def test_chess_evaluations_give_both_numbers(learned_client: TestClient) -> None:
    request = {"game": "chess", "fen": CHESS_START, "moves": ["e2e4", "g1f3"]}
    body = learned_client.post("/api/evaluations", json=request).json()
    expected = static_evaluations("chess", CHESS_START, ["e2e4", "g1f3"], trained_chess())
    assert body["learned"] is True
    assert body["position"]["learned"] == pytest.approx(expected.position.learned)
    assert body["moves"][0]["learned"] == pytest.approx(expected.moves[0][1].learned)
    assert body["moves"][0]["learned"] != pytest.approx(body["moves"][0]["hand"])


def test_an_unknown_game_is_refused(bare_client: TestClient) -> None:
    assert bare_client.get("/api/learning?game=go").status_code == 422


def test_evaluations_give_both_numbers_for_the_side_to_move(learned_client: TestClient) -> None:
    request = {"game": "knight", "fen": KNIGHT_START, "moves": ["b1c3", "g1f3"]}
    body = learned_client.post("/api/evaluations", json=request).json()
    expected = static_evaluations("knight", KNIGHT_START, ["b1c3", "g1f3"], trained())
    assert body["learned"] is True and body["message"] is None
    assert body["position"]["hand"] == pytest.approx(expected.position.hand)
    assert body["position"]["learned"] == pytest.approx(expected.position.learned)
    assert [m["uci"] for m in body["moves"]] == ["b1c3", "g1f3"]
    assert body["moves"][1]["learned"] == pytest.approx(expected.moves[1][1].learned)


def test_evaluations_without_weights_give_the_hand_value_and_the_reason(
    bare_client: TestClient,
) -> None:
    body = bare_client.post("/api/evaluations", json={"fen": KNIGHT_START}).json()
    assert body["learned"] is False and body["message"] == MISSING
    assert body["position"]["learned"] is None and isinstance(body["position"]["hand"], float)


@pytest.mark.parametrize(
    ("request_body", "status", "code"),
    [
        ({"game": "knight", "fen": KNIGHT_START, "moves": ["e2e4"]}, 400, "illegal_move"),
        ({"game": "knight", "fen": "not a fen"}, 400, "invalid_fen"),
        ({"game": "knight", "fen": KNIGHT_START, "moves": ["b1c3"] * 257}, 422, "bad_request"),
        ({"game": "knight", "fen": KNIGHT_START, "extra": 1}, 422, "bad_request"),
        ({"game": "knight", "fen": KNIGHT_START, "moves": "b1c3"}, 422, "bad_request"),
        ({"game": "go", "fen": KNIGHT_START}, 422, "bad_request"),
        ({"game": "knight", "fen": "x" * 121}, 422, "bad_request"),
    ],
)
def test_bad_evaluation_requests_are_refused_by_name(
    bare_client: TestClient, request_body: dict, status: int, code: str
) -> None:
    response = bare_client.post("/api/evaluations", json=request_body)
    assert response.status_code == status, response.text
    assert response.json()["code"] == code


def test_the_learning_page_is_served_and_linked_from_the_main_page(
    bare_client: TestClient,
) -> None:
    page = bare_client.get("/learning")
    assert page.status_code == 200 and 'src="/static/js/learning.js"' in page.text
    assert 'href="/learning"' in bare_client.get("/").text


def test_the_default_dependency_reports_the_engines_own_weights(client: TestClient) -> None:
    body = client.get("/api/learning").json()
    assert body["available"] in (True, False)  # whatever this checkout ships
    assert body["file"] == "knight.npz" or body["source"] == "CANOPY_LEARNED_WEIGHTS"


@pytest.mark.skipif(bool(os.environ.get(ENV_VAR)), reason="other weights replace the shipped")
def test_the_shipped_chess_weights_say_which_generation_they_are_and_that_hand_is_the_default(
    client: TestClient,
) -> None:
    body = client.get("/api/learning?game=chess").json()
    assert body["available"] is True and body["source"] == "shipped"
    assert body["file"] == "chess.npz" and body["hidden"] == 8
    assert [p["accepted"] for p in body["curve"]["points"]] == [False, False, False]
    assert body["generation"] == 3 and body["kept"] is False
    assert "not as a default" in body["note"] and "45.6 %" in body["note"]
    assert body["command"].startswith("canopy train --game chess --games 1000")


@pytest.mark.skipif(bool(os.environ.get(ENV_VAR)), reason="other weights replace the shipped")
def test_the_shipped_knight_weights_carry_their_measured_note(client: TestClient) -> None:
    body = client.get("/api/learning?game=knight").json()
    assert body["generation"] == 1 and body["kept"] is True
    assert "default evaluation of uct-minimax" in body["note"] and "61.3 %" in body["note"]


def test_the_measured_note_follows_the_weights_not_the_file_name(tmp_path: Path) -> None:
    """A copy of the shipped chess weights under another name keeps its note; other
    weights saved as chess.npz get none."""
    shipped = load_weights(shipped_path("chess"), "chess")
    assert "not as a default" in learning_report("chess", shipped, "")["note"]
    other = trained_chess()
    save_weights(tmp_path / "chess.npz", other)
    copied = load_weights(tmp_path / "chess.npz", "chess")
    assert learning_report("chess", copied, "")["note"] is None
    assert digest(copied) == digest(other) != digest(shipped)
