"""The weights file: loaded and checked once; a missing or wrong file is a clear error."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.eval.features import N_CHESS, N_KNIGHT
from engine.eval.tables import hand_piece_square_tables
from engine.eval.weights import (
    DEFAULT_PATH,
    EvalWeights,
    EvalWeightsError,
    hand_weights,
    load_weights,
    save_weights,
)


def test_shipped_weights_load_with_one_weight_per_feature() -> None:
    w = load_weights(DEFAULT_PATH)
    assert w.chess_mg.shape == w.chess_eg.shape == (N_CHESS,)
    assert w.knight_mg.shape == w.knight_eg.shape == (N_KNIGHT,)
    assert w.source  # says how it was made


def test_weights_round_trip_through_the_file(tmp_path: Path) -> None:
    path = tmp_path / "w.npz"
    save_weights(path, hand_weights())
    back = load_weights(path)
    assert np.array_equal(back.chess_mg, hand_weights().chess_mg)
    assert back.source == "hand-set"


def test_missing_file_names_the_file_and_the_fix(tmp_path: Path) -> None:
    with pytest.raises(EvalWeightsError, match=r"missing.*engine\.tune\.texel"):
        load_weights(tmp_path / "nowhere.npz")


def test_corrupt_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "w.npz"
    path.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(EvalWeightsError, match="unreadable"):
        load_weights(path)


def test_wrong_shape_is_refused(tmp_path: Path) -> None:
    hand = hand_weights()
    path = tmp_path / "w.npz"
    save_weights(path, EvalWeights(hand.chess_mg[:-1], hand.chess_eg, hand.knight_mg,
                                   hand.knight_eg))  # fmt: skip
    with pytest.raises(EvalWeightsError, match="chess_mg has shape"):
        load_weights(path)


def test_file_for_other_features_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "w.npz"
    save_weights(path, hand_weights())
    with np.load(path) as data:
        arrays = dict(data)
    arrays["knight_features"] = arrays["knight_features"][::-1]
    np.savez(path, **arrays)
    with pytest.raises(EvalWeightsError, match="other knight features"):
        load_weights(path)


def test_format_1_file_reads_with_the_hand_made_tables(tmp_path: Path) -> None:
    """A file written before the tables were fitted still loads, with the hand tables."""
    path = tmp_path / "w.npz"
    save_weights(path, hand_weights())
    with np.load(path) as data:
        arrays = {k: v for k, v in data.items() if not k.startswith("chess_table")}
    arrays["version"] = np.array(1)
    np.savez(path, **arrays)
    back = load_weights(path)
    mg, eg = hand_piece_square_tables()
    assert np.array_equal(back.chess_tables[0], mg)
    assert np.array_equal(back.chess_tables[1], eg)


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        (np.zeros((6, 63)), "shape"),
        (np.full((6, 64), 0.5), "whole"),
        (np.full((6, 64), "x"), "whole"),
        (None, "missing"),
    ],
)
def test_bad_tables_are_refused(tmp_path: Path, table: np.ndarray | None, problem: str) -> None:
    path = tmp_path / "w.npz"
    save_weights(path, hand_weights())
    with np.load(path) as data:
        arrays = dict(data)
    if table is None:
        del arrays["chess_table_eg"]
    else:
        arrays["chess_table_eg"] = table
    np.savez(path, **arrays)
    with pytest.raises(EvalWeightsError, match=f"chess_table_eg is .*{problem}|{problem}"):
        load_weights(path)
