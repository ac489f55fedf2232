"""The positions and targets of ``canopy train --target quiescence``."""

from __future__ import annotations

import numpy as np

from engine.core.state import TURN
from engine.learn.static_leaves import CHILDREN, EVERY, static_positions
from engine.rules.convert import state_from_fen

# White to move; the black knight on d5 stands alone where the e3 knight can take it.
HANGING = "n7/8/8/3n4/8/4N3/8/N7 w - - 0 10"
# The same with Black to move: now the white knight on e3 is the one that hangs.
HANGING_BLACK = "n7/8/8/3n4/8/4N3/8/N7 b - - 0 10"


def run(fens: list[str], white: list[float], seed: int = 1) -> tuple[np.ndarray, ...]:
    states = np.stack([state_from_fen(fen, "knight") for fen in fens])
    game_of = np.arange(len(fens), dtype=np.int64)
    return static_positions(states, game_of, np.array(white), seed)


def test_each_sampled_leaf_comes_with_some_of_its_children() -> None:
    positions, result, score, game = run([HANGING], [1.0])
    assert len(positions) == 1 + CHILDREN
    assert np.array_equal(positions[0], state_from_fen(HANGING, "knight"))
    assert np.all(positions[1:, TURN] == 1)  # one move on: Black to move
    assert np.all(game == 0)
    # The result is the game's, for each position's own side to move.
    assert result[0] == 1.0 and np.all(result[1:] == 0.0)
    assert np.all((score >= 0.0) & (score <= 1.0))


def test_the_search_score_sees_the_knight_that_hangs() -> None:
    # The static features alone would not say who wins the exchange; the 1-ply search
    # with quiescence plays it out: the side to move takes the loose knight.
    # Every third leaf is sampled: the first and the fourth here.
    assert EVERY == 3
    _, _, score, game = run([HANGING, HANGING, HANGING, HANGING_BLACK], [0.5] * 4)
    assert score[0] > 0.6  # White to move wins a knight
    assert game[1 + CHILDREN] == 3 and score[1 + CHILDREN] > 0.6  # Black to move, the same


def test_the_same_seed_gives_the_same_positions_and_another_seed_others() -> None:
    a = run([HANGING], [1.0], seed=3)
    b = run([HANGING], [1.0], seed=3)
    c = run([HANGING], [1.0], seed=4)
    for x, y in zip(a, b, strict=True):
        assert np.array_equal(x, y)
    assert not np.array_equal(a[0], c[0])
