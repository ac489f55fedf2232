"""The warm-up compiles the default opponent first, in both games, so a class can play
while the other algorithms compile."""

from __future__ import annotations

import pytest

import engine.warm
from engine.search.registry import ALGORITHMS, DEFAULT_ALGORITHM
from engine.warm import parts


def test_the_default_opponent_compiles_first_in_both_games_then_everything_else() -> None:
    labels = [label for label, _ in parts()]
    assert labels[:2] == [f"chess: {DEFAULT_ALGORITHM}", f"knight: {DEFAULT_ALGORITHM}"]
    expected = {f"{g}: {a}" for g in ("chess", "knight") for a in ALGORITHMS}
    expected |= {f"{g}: move generation and playouts" for g in ("chess", "knight")}
    assert set(labels) == expected and len(labels) == len(expected)


def test_on_two_cores_a_second_process_compiles_every_other_algorithm(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    touched: list[str] = []
    started: list[list[str]] = []

    class FakeProcess:
        def __init__(self, args: list[str]) -> None:
            started.append(args)

        def wait(self) -> int:
            return 0

    monkeypatch.setattr(engine.warm, "_touch", lambda game, name: touched.append(f"{game}: {name}"))
    monkeypatch.setattr(engine.warm, "_move_generation", lambda game: touched.append(game))
    monkeypatch.setattr(engine.warm.subprocess, "Popen", FakeProcess)
    labels: list[str] = []
    engine.warm.warm(lambda done, total, label: labels.append(label), jobs=2)
    assert touched == [
        f"chess: {DEFAULT_ALGORITHM}",
        f"knight: {DEFAULT_ALGORITHM}",
        "chess",
        "knight",
    ]
    (args,) = started
    assert args[1:4] == ["-m", "engine.warm", "--only"]
    assert sorted(args[4:]) == sorted(a for a in ALGORITHMS if a != DEFAULT_ALGORITHM)
    assert labels[-2:] == ["the other algorithms, in a second process", "ready"]
