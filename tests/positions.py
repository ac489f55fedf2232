"""Positions along seeded random games, for tests of a property that must hold in every
position (an inference equal to its reference, a shortcut equal to the search it skips).

One walk serves them all: it plays a random legal move from each position it yields,
restarts a finished game, and — with ``restart`` — an ongoing one now and then, so a
sample reaches openings as often as long games. The same seed gives the same positions.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice

import numpy as np

from engine.core.games import legal_moves, make_move, status
from engine.core.state import MAX_MOVES, ONGOING, STATE_SIZE
from engine.rules.convert import state_from_fen


def random_walk(
    game: str, seed: int, start: str = "startpos", restart: float = 0.0
) -> Iterator[np.ndarray]:
    """Each position of the walk (a copy), every one with a legal move and no rule ending
    the game; the start position again after a finished game, and with probability
    ``restart`` instead of any ongoing one."""
    rng = np.random.default_rng(seed)
    buf = np.zeros(MAX_MOVES, dtype=np.int32)
    s = state_from_fen(start, game)
    while True:
        n = legal_moves(s, buf)
        if status(s, n) != ONGOING or (restart and rng.random() < restart):
            s = state_from_fen(start, game)
            n = legal_moves(s, buf)
        yield s.copy()
        make_move(s, int(buf[rng.integers(n)]))


def random_positions(
    game: str, count: int, seed: int, start: str = "startpos", restart: float = 0.0
) -> np.ndarray:
    """The first ``count`` positions of :func:`random_walk`, one state per row."""
    out = np.zeros((count, STATE_SIZE), dtype=np.uint64)
    for i, s in enumerate(islice(random_walk(game, seed, start, restart), count)):
        out[i] = s
    return out
