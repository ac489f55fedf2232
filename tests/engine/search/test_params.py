"""Parameter declarations and their validation: clear errors naming the field and range."""

from __future__ import annotations

import pytest

from engine.errors import InvalidParameterError, UnknownAlgorithmError
from engine.search.registry import describe_algorithms, validate_params, validate_threads


@pytest.mark.parametrize(
    ("algorithm", "params", "needle"),
    [
        ("uct", {"c": -0.1}, "between 0 and 10"),
        ("uct", {"c": "high"}, "must be a number"),
        ("uct", {"c": float("nan")}, "finite"),
        ("uct", {"policy": "greedy"}, "one of uniform, capture_first"),
        ("uct", {"ply_cap": 1.5}, "whole number"),
        ("bfms", {"c": 1.0}, "unknown parameter 'c' for bfms; allowed: C, fpu, leaf, solver"),
        ("alphabeta", {"quiescence": "maybe"}, "true or false"),
        ("uct-minimax", {"depth": 9}, "between 1 and 6"),
    ],
)
def test_bad_parameters_are_refused_by_name(algorithm: str, params: dict, needle: str) -> None:
    with pytest.raises(InvalidParameterError) as info:
        validate_params(algorithm, params, "chess")
    assert needle in str(info.value)


def test_unknown_algorithm_and_threads() -> None:
    with pytest.raises(
        UnknownAlgorithmError, match="known: uct, uct-minimax, bfms, alphabeta, mcts"
    ):
        validate_params("mcts-zero", None, "chess")
    assert validate_threads("uct", 4) == 4
    for bad in (0, 65, True, 2.5):
        with pytest.raises(InvalidParameterError):
            validate_threads("uct", bad)


def test_algorithms_are_described_with_ranges() -> None:
    described = {a["name"]: a for a in describe_algorithms("knight")}
    assert list(described) == ["uct", "uct-minimax", "bfms", "alphabeta", "mcts"]
    c = next(p for p in described["uct"]["params"] if p["name"] == "c")
    assert c["min"] == 0.0 and c["max"] == 10.0 and c["description"]
    policy = next(p for p in described["uct"]["params"] if p["name"] == "policy")
    assert policy["default"] == "capture_first" and policy["choices"] == [
        "uniform",
        "capture_first",
    ]
    assert described["alphabeta"]["threads"]["max"] == 1 and not described["alphabeta"]["mcts"]
