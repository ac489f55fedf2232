"""The learned weights files (knight chess and chess): round trip, and a clear error for
each kind of bad file."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from engine.eval.learned_weights import (
    ENV_VAR,
    FORMAT_VERSION,
    ChessNetWeights,
    LearnedWeights,
    LearnedWeightsError,
    active_path,
    load_weights,
    save_weights,
    shipped_path,
)
from engine.learn.chessnet import ChessModel
from engine.learn.ntuple import Model, tuple_squares
from tests.engine.eval.npz import rewrite


def weights() -> LearnedWeights:
    model = Model(tuple_squares("pst"))
    theta = np.random.default_rng(1).normal(size=model.size)
    return model.unpack(theta, "canopy train --seed 1", {"generation": 3})


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    path = tmp_path / "knight.npz"
    save_weights(path, weights())
    return path


def test_weights_round_trip_with_the_command_and_meta(saved: Path) -> None:
    back = load_weights(saved)
    w = weights()
    assert np.array_equal(back.linear, w.linear)
    assert np.array_equal(back.tuples, w.tuples)
    assert np.array_equal(back.weights, w.weights)
    assert np.array_equal(back.contact, w.contact)
    assert back.command == "canopy train --seed 1"
    assert back.meta == {"generation": 3}


def test_file_holds_plain_arrays_only(saved: Path) -> None:
    with np.load(saved, allow_pickle=False) as data:
        assert all(data[key].dtype != object for key in data.files)
        assert int(data["version"]) == FORMAT_VERSION
        assert str(data["game"]) == "knight"


def test_missing_file_names_the_file_and_how_to_train(tmp_path: Path) -> None:
    with pytest.raises(LearnedWeightsError, match=r"nowhere\.npz is missing.*canopy train"):
        load_weights(tmp_path / "nowhere.npz")


def test_corrupt_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "knight.npz"
    path.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(LearnedWeightsError, match="unreadable"):
        load_weights(path)


def test_truncated_file_is_refused(saved: Path) -> None:
    saved.write_bytes(saved.read_bytes()[:200])
    with pytest.raises(LearnedWeightsError, match="unreadable"):
        load_weights(saved)


def test_another_games_weights_are_refused(saved: Path) -> None:
    rewrite(saved, game="chess")
    with pytest.raises(LearnedWeightsError, match="is for 'chess', not 'knight'"):
        load_weights(saved)


def test_another_format_version_is_refused(saved: Path) -> None:
    rewrite(saved, version=FORMAT_VERSION + 1)
    with pytest.raises(LearnedWeightsError, match="has format"):
        load_weights(saved)


def test_a_missing_array_is_named(saved: Path) -> None:
    rewrite(saved, weights=None)
    with pytest.raises(LearnedWeightsError, match=r"lacks \['weights'\]"):
        load_weights(saved)


def test_weights_of_the_wrong_shape_are_refused(saved: Path) -> None:
    w = weights()
    rewrite(saved, weights=w.weights[:, :-1, :])
    with pytest.raises(LearnedWeightsError, match=r"weights has shape \(2, 63, 3\)"):
        load_weights(saved)


def test_linear_layer_of_the_wrong_shape_is_refused(saved: Path) -> None:
    rewrite(saved, linear=np.zeros((2, 3)))
    with pytest.raises(LearnedWeightsError, match="linear has shape"):
        load_weights(saved)


def test_a_contact_table_of_the_wrong_shape_is_refused(saved: Path) -> None:
    rewrite(saved, contact=np.zeros((2, 2, 9)))
    with pytest.raises(LearnedWeightsError, match=r"contact has shape \(2, 2, 9\)"):
        load_weights(saved)


def test_other_features_are_refused(saved: Path) -> None:
    rewrite(saved, features=np.array(["knights", "mobility"]))
    with pytest.raises(LearnedWeightsError, match="other features"):
        load_weights(saved)


def test_squares_off_the_board_are_refused(saved: Path) -> None:
    squares = weights().tuples.copy()
    squares[5, 0] = 64
    rewrite(saved, tuples=squares)
    with pytest.raises(LearnedWeightsError, match=r"0\.\.63"):
        load_weights(saved)


def test_non_finite_weights_are_refused(saved: Path) -> None:
    w = weights().weights.copy()
    w[0, 0, 0] = np.nan
    rewrite(saved, weights=w)
    with pytest.raises(LearnedWeightsError, match="non-finite"):
        load_weights(saved)


def test_saving_bad_weights_writes_nothing(tmp_path: Path) -> None:
    w = weights()
    bad = LearnedWeights("knight", w.linear[:, :3], w.tuples, w.weights, w.contact)
    with pytest.raises(LearnedWeightsError):
        save_weights(tmp_path / "knight.npz", bad)
    assert os.listdir(tmp_path) == []


def test_saving_replaces_a_file_whole(saved: Path) -> None:
    w = weights()
    save_weights(saved, LearnedWeights("knight", w.linear * 2, w.tuples, w.weights, w.contact))
    assert np.array_equal(load_weights(saved).linear, w.linear * 2)
    assert sorted(os.listdir(saved.parent)) == ["knight.npz"]


# ---------------------------------------------------------------- chess


def chess_weights() -> ChessNetWeights:
    model = ChessModel(8)
    theta = model.start() + np.random.default_rng(2).normal(0.0, 0.1, model.size)
    return model.unpack(theta, "canopy train --game chess --seed 2", {"generation": 1})


@pytest.fixture
def saved_chess(tmp_path: Path) -> Path:
    path = tmp_path / "chess.npz"
    save_weights(path, chess_weights())
    return path


def test_chess_weights_round_trip(saved_chess: Path) -> None:
    back = load_weights(saved_chess, "chess")
    w = chess_weights()
    assert isinstance(back, ChessNetWeights)
    for name in ("linear", "scale", "hidden", "bias", "out"):
        assert np.array_equal(getattr(back, name), getattr(w, name)), name
    assert back.command == w.command and back.meta == {"generation": 1}
    with np.load(saved_chess, allow_pickle=False) as data:
        assert str(data["game"]) == "chess" and str(data["kind"]) == "mlp"


def test_chess_weights_are_refused_as_knight_weights_and_back(
    saved: Path, saved_chess: Path
) -> None:
    with pytest.raises(LearnedWeightsError, match="is for 'chess', not 'knight'"):
        load_weights(saved_chess, "knight")
    with pytest.raises(LearnedWeightsError, match="is for 'knight', not 'chess'"):
        load_weights(saved, "chess")


def test_a_missing_chess_file_names_the_chess_training_command(tmp_path: Path) -> None:
    with pytest.raises(LearnedWeightsError, match=r"chess\.npz is missing.*--game chess"):
        load_weights(tmp_path / "chess.npz", "chess")


@pytest.mark.parametrize(
    ("changes", "needle"),
    [
        ({"hidden": np.zeros((8, 5))}, r"hidden has shape \(8, 5\), expected \(8, 23\)"),
        ({"out": np.zeros(3)}, r"out has shape \(3,\), expected \(8,\)"),
        ({"bias": np.zeros((2, 2))}, r"bias has shape \(2, 2\), expected \(H,\)"),
        ({"scale": None}, r"lacks \['scale'\]"),
        ({"kind": "ntuple"}, "holds a 'ntuple' model, expected 'mlp'"),
        ({"features": np.array(["pawn"])}, "other features"),
        ({"out": np.full(8, np.inf)}, "non-finite"),
        ({"hidden": np.zeros((8, 23), dtype=np.int64)}, "must be floating point"),
    ],
    ids=["hidden", "out", "bias", "missing", "kind", "features", "inf", "ints"],
)
def test_bad_chess_files_are_refused_naming_the_problem(
    saved_chess: Path, changes: dict, needle: str
) -> None:
    rewrite(saved_chess, **changes)
    with pytest.raises(LearnedWeightsError, match=needle):
        load_weights(saved_chess, "chess")


def test_the_override_replaces_only_its_own_games_weights(
    saved_chess: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_VAR, str(saved_chess))
    assert active_path("chess") == saved_chess
    assert active_path("knight") == shipped_path("knight")


def test_an_unreadable_override_is_the_answer_for_every_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"garbage")
    monkeypatch.setenv(ENV_VAR, str(bad))
    assert active_path("chess") == bad and active_path("knight") == bad


def test_the_override_may_name_one_file_per_game(
    saved: Path, saved_chess: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_VAR, f"{saved}{os.pathsep}{saved_chess}")
    assert active_path("knight") == saved and active_path("chess") == saved_chess
