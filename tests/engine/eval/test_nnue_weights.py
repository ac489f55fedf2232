"""The NNUE's weights file: a round trip, and each kind of bad file refused by name."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.eval.nnue_weights import NNUEWeightsError, load, save
from engine.learn.nnue_fit import random_network
from tests.engine.eval.npz import rewrite


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    path = tmp_path / "net.npz"
    save(path, random_network(16, seed=4))
    return path


def test_a_saved_network_loads_unchanged(saved: Path) -> None:
    net = random_network(16, seed=4)
    back = load(saved)
    assert back.digest == net.digest
    assert back.hidden == 16
    assert back.parameters == 768 * 16 + 16 + 768 + 32 + 1


def test_a_missing_file_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(NNUEWeightsError, match=r"nope\.npz is missing; train one with"):
        load(tmp_path / "nope.npz")


def test_a_corrupt_file_is_refused_by_name(saved: Path) -> None:
    saved.write_bytes(saved.read_bytes()[:300])
    with pytest.raises(NNUEWeightsError, match=r"net\.npz is unreadable"):
        load(saved)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"ft_weight": np.zeros((768, 8), np.int16)},
            r"ft_bias has shape \(16,\), expected \(8,\)",
        ),
        ({"psqt": np.zeros(700, np.int16)}, r"psqt has shape \(700,\), expected \(768,\)"),
        ({"out_weight": np.zeros(32, np.float64)}, r"out_weight is float64, expected float32"),
        ({"ft_weight": np.zeros((768, 16), np.float32)}, r"ft_weight is float32, expected int16"),
        ({"version": 7}, r"format version 7; this Canopy reads version 1"),
        ({"kind": "mlp"}, r"holds a 'mlp' model, not an NNUE"),
        ({"inputs": 640}, r"with 640 inputs; expected 'chess' with 768"),
        ({"out_bias": np.float32("nan")}, r"the output layer is not finite"),
        ({"out_weight": np.full(32, 3e7, np.float32)}, r"an output weight beyond ±10000"),
        ({"psqt": None}, r"lacks \['psqt'\]"),
    ],
)
def test_a_wrong_file_is_refused_naming_what_is_wrong(
    saved: Path, changes: dict[str, object], message: str
) -> None:
    rewrite(saved, **changes)
    with pytest.raises(NNUEWeightsError, match=message):
        load(saved)


def test_the_learned_evaluations_file_is_not_taken_for_a_network() -> None:
    from engine.eval.learned_weights import shipped_path

    with pytest.raises(NNUEWeightsError, match=r"holds a 'mlp' model, not an NNUE"):
        load(shipped_path("chess"))
