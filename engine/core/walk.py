"""Uniformly random plies: the random opening moves of self-play and training games, the
lines ``canopy bench`` times an incremental evaluation on, the tests' random games.

One walker, so every caller draws from its generator the same way — one
``rng.integers(n)`` a ply, none after the game ends — and a seed names the same
positions wherever it is used.
"""

from __future__ import annotations

import numpy as np

from engine.core.games import legal_moves, make_move, status
from engine.core.state import MAX_MOVES, ONGOING


def random_line(start: np.ndarray, plies: int, rng: np.random.Generator) -> list[np.ndarray]:
    """``start`` (a copy) and the positions after each of up to ``plies`` uniformly random
    legal moves, stopping early where the rules end the game; ``start`` is not changed."""
    s = start.copy()
    line = [s.copy()]
    moves = np.zeros(MAX_MOVES, dtype=np.int32)
    for _ in range(plies):
        n = legal_moves(s, moves)
        if status(s, n) != ONGOING:
            break
        make_move(s, int(moves[rng.integers(n)]))
        line.append(s.copy())
    return line
