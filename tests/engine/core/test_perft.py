"""Perft pins the numba move generators to independently counted leaf totals."""

from __future__ import annotations

import pytest

from engine.core.perft import perft
from engine.rules.convert import state_from_fen
from tests.conftest import SHARED, read_epd

SUITES = {"chess": "data/chess-perft.epd", "knight": "data/knight-perft.epd"}


def _cases() -> list[object]:
    cases = []
    for game, path in SUITES.items():
        if not (SHARED / path).exists():
            cases.append(pytest.param(game, path, None, None, id=f"{game}-missing"))
            continue
        for index, (fen, counts) in enumerate(read_epd(path)):
            for depth, nodes in counts.items():
                cases.append(pytest.param(game, fen, depth, nodes, id=f"{game}-{index}-d{depth}"))
    return cases


@pytest.mark.parametrize(("game", "fen", "depth", "nodes"), _cases())
def test_perft_matches_every_count_in_the_shared_suite(
    game: str, fen: str, depth: int, nodes: int
) -> None:
    if depth is None:
        read_epd(fen)  # skips with the reason
    assert perft(state_from_fen(fen, game), depth) == nodes


def test_perft_depth_zero_counts_the_position_itself() -> None:
    assert perft(state_from_fen(None), 0) == 1


def test_knight_start_position_matches_the_spec_counts() -> None:
    s = state_from_fen(None, "knight")
    assert [perft(s, d) for d in range(1, 5)] == [40, 1_600, 66_880, 2_794_708]


@pytest.mark.slow
def test_chess_start_position_depth_six() -> None:
    assert perft(state_from_fen(None), 6) == 119_060_324


@pytest.mark.slow
def test_knight_start_position_depth_five() -> None:
    assert perft(state_from_fen(None, "knight"), 5) == 121_115_376
