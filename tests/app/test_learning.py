"""The learned evaluations' routes: ``GET /api/learning``, ``POST /api/evaluations``,
``GET /api/learning/nnue/position``, ``/learning``.

The weights come through the :func:`app.routes.learning.learned_weights` and
:func:`app.routes.learning.nnue_weights` dependencies; the tests override them with
weights made here (both games, and a random NNUE), so they need no trained file and no
recompile of the baked-in kernels.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.routes.learning import CHESS_ONLY, learned_weights, nnue_weights
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
from engine.eval.nnue_weights import NNUEWeights
from engine.learn.chessnet import ChessModel
from engine.learn.contributions import what_it_adds
from engine.learn.nnue_heatmap import piece_square_maps, rounded
from engine.learn.ntuple import Model, tuple_squares
from engine.learn.report import learning_report
from tests.networks import large_network

KNIGHT_START = "nnnnnnnn/nnnnnnnn/8/8/8/8/NNNNNNNN/NNNNNNNN w - - 0 1"
MISSING = "learned weights file /nowhere/knight.npz is missing; train them"
CHESS_MISSING = "learned weights file /nowhere/chess.npz is missing; train them"
CHESS_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
NNUE_MISSING = "NNUE weights file /nowhere/nnue-chess.npz is missing; train one"
ITALIAN = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"


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


def trained_nnue() -> NNUEWeights:
    """A random network with a training record as ``canopy train --model nnue`` writes it,
    two generations of gating matches added."""
    net = large_network(hidden=16, seed=21)
    meta = {"generation": 2, "positions": 41_000, "epochs": 3, "seed": 1, "date": "2026-12-07",
            "train_loss": [0.0208, 0.0199, 0.0192], "held_loss": [0.0198, 0.0193, 0.0191],
            "generations": [
                {"number": 1, "score": 0.56, "elo": 42.0, "elo_ci95": [-10.0, 95.0],
                 "positions": 20_000},
                {"number": 2, "score": 0.45, "elo": -35.0, "elo_ci95": [-90.0, None],
                 "positions": 41_000}]}  # fmt: skip
    command = "canopy train --game chess --model nnue --generations 2 --out n2"
    return NNUEWeights(**{**net.__dict__, "command": command, "meta": meta})


@pytest.fixture
def learned_client(settings: Settings) -> Iterator[TestClient]:
    """An app whose learned weights are :func:`trained`'s and :func:`trained_chess`'s, and
    whose NNUE is :func:`trained_nnue`."""
    app = create_app(settings)
    weights = trained()
    chess_weights = trained_chess()
    net = trained_nnue()

    async def override() -> dict:
        return {"chess": (chess_weights, ""), "knight": (weights, "")}

    async def override_nnue() -> tuple:
        return net, ""

    app.dependency_overrides[learned_weights] = override
    app.dependency_overrides[nnue_weights] = override_nnue
    with TestClient(app) as c:
        yield c


@pytest.fixture
def bare_client(settings: Settings) -> Iterator[TestClient]:
    """An app with no learned weights at all (as if the shipped knight file were lost)."""
    app = create_app(settings)

    async def override() -> dict:
        return {"chess": (None, CHESS_MISSING), "knight": (None, MISSING)}

    async def override_nnue() -> tuple:
        return None, NNUE_MISSING

    app.dependency_overrides[learned_weights] = override
    app.dependency_overrides[nnue_weights] = override_nnue
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


# ---------------------------------------------------------------- the NNUE


def test_chess_learning_describes_the_nnue_its_maps_and_its_training_curve(
    learned_client: TestClient,
) -> None:
    nnue = learned_client.get("/api/learning?game=chess").json()["nnue"]
    assert nnue["available"] is True and nnue["why"] is None
    assert nnue["hidden"] == 16 and nnue["parameters"] == trained_nnue().parameters
    assert nnue["command"].startswith("canopy train --game chess --model nnue")
    assert nnue["meta"]["positions"] == 41_000 and nnue["meta"]["date"] == "2026-12-07"
    assert nnue["maps"] == rounded(piece_square_maps(trained_nnue()))
    assert set(nnue["maps"]) == {"pawn", "knight", "bishop", "rook", "queen", "king"}
    assert len(nnue["maps"]["knight"]["enemy"]) == 64
    curve = nnue["curve"]
    assert curve["train_loss"] == [0.0208, 0.0199, 0.0192] and len(curve["held_loss"]) == 3
    first, second = curve["generations"]
    assert (first["number"], first["elo"], first["low"], first["high"]) == (1, 42.0, -10.0, 95.0)
    assert first["accepted"] is True and second["accepted"] is False
    assert second["high"] is None  # an unbounded end stays unbounded


def test_knight_learning_has_no_nnue(learned_client: TestClient) -> None:
    assert learned_client.get("/api/learning?game=knight").json()["nnue"] is None


def test_without_a_network_the_nnue_section_says_why_and_how_to_train_one(
    bare_client: TestClient,
) -> None:
    nnue = bare_client.get("/api/learning?game=chess").json()["nnue"]
    assert nnue["available"] is False and nnue["why"] == NNUE_MISSING
    assert nnue["train"] == "canopy train --game chess --model nnue"
    assert nnue["maps"] is None and nnue["curve"] is None


def test_chess_evaluations_give_three_numbers(learned_client: TestClient) -> None:
    request = {"game": "chess", "fen": ITALIAN, "moves": ["f3g5", "e1g1"]}
    body = learned_client.post("/api/evaluations", json=request).json()
    expected = static_evaluations("chess", ITALIAN, ["f3g5", "e1g1"], None, trained_nnue())
    assert body["nnue"] is True and body["nnue_message"] is None
    assert body["position"]["nnue"] == pytest.approx(expected.position.nnue)
    assert body["moves"][1]["nnue"] == pytest.approx(expected.moves[1][1].nnue)
    assert isinstance(body["position"]["learned"], float)  # the other two are still there


def test_the_nnue_number_is_null_with_its_reason_without_a_network_or_in_knight_chess(
    learned_client: TestClient, bare_client: TestClient
) -> None:
    body = bare_client.post("/api/evaluations", json={"game": "chess", "fen": ITALIAN}).json()
    assert body["nnue"] is False and body["nnue_message"] == NNUE_MISSING
    assert body["position"]["nnue"] is None
    knight = {"game": "knight", "fen": KNIGHT_START, "moves": ["b1c3"]}
    body = learned_client.post("/api/evaluations", json=knight).json()
    assert body["nnue"] is False and body["nnue_message"] == CHESS_ONLY
    assert body["moves"][0]["nnue"] is None


def test_what_the_nnue_adds_in_a_position_piece_by_piece(learned_client: TestClient) -> None:
    body = learned_client.get("/api/learning/nnue/position", params={"fen": ITALIAN}).json()
    expected = what_it_adds(ITALIAN, trained_nnue())
    assert body["available"] is True and body["turn"] == "white" and body["fen"] == ITALIAN
    assert body["nnue_cp"] == pytest.approx(expected.nnue_cp)
    assert body["difference_cp"] == pytest.approx(expected.nnue_cp - expected.hand_cp)
    assert len(body["pieces"]) == 32
    knight = next(p for p in body["pieces"] if p["square"] == "f3")
    f3 = next(p for p in expected.pieces if p.square == "f3")
    assert knight["piece"] == "N" and knight["nnue"] == pytest.approx(f3.nnue)
    assert knight["hand"] == pytest.approx(f3.hand)


def test_the_position_defaults_to_the_start_and_works_without_a_network(
    bare_client: TestClient,
) -> None:
    body = bare_client.get("/api/learning/nnue/position").json()
    assert body["fen"] == CHESS_START and body["available"] is False
    assert body["message"] == NNUE_MISSING and body["nnue_cp"] is None
    assert isinstance(body["hand_cp"], float) and -1 <= body["hand_eval"] <= 1
    assert all(p["nnue"] is None for p in body["pieces"])


@pytest.mark.parametrize(
    ("fen", "status", "code"),
    [
        ("not a fen", 400, "invalid_fen"),
        ("8/8/8/8/8/8/8/8 w - - 0 1", 400, "invalid_fen"),  # no kings
        (KNIGHT_START, 400, "invalid_fen"),  # a knight-chess position
        ("x" * 121, 422, "bad_request"),
        ("", 422, "bad_request"),
    ],
)
def test_a_bad_position_is_refused_with_a_clear_message(
    bare_client: TestClient, fen: str, status: int, code: str
) -> None:
    response = bare_client.get("/api/learning/nnue/position", params={"fen": fen})
    assert response.status_code == status, response.text
    assert response.json()["code"] == code and response.json()["message"]
