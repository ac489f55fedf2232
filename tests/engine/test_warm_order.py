"""The warm-up compiles the default opponent first, in both games, so a class can play
while the other algorithms compile."""

from __future__ import annotations

from engine.search.registry import ALGORITHMS, DEFAULT_ALGORITHM
from engine.warm import parts


def test_the_default_opponent_compiles_first_in_both_games_then_everything_else() -> None:
    labels = [label for label, _ in parts()]
    assert labels[:2] == [f"chess: {DEFAULT_ALGORITHM}", f"knight: {DEFAULT_ALGORITHM}"]
    expected = {f"{g}: {a}" for g in ("chess", "knight") for a in ALGORITHMS}
    expected |= {f"{g}: move generation and playouts" for g in ("chess", "knight")}
    assert set(labels) == expected and len(labels) == len(expected)
