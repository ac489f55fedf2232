"""Compile (or load from the on-disk cache) every numba kernel ahead of use.

A cold start compiles for tens of seconds; a server warms in its lifespan
and the Docker image warms at build time so the first search a user starts
is already fast.
"""

from __future__ import annotations

import time

from engine.core.bits import new_rng
from engine.core.convert import state_from_fen
from engine.core.perft import perft
from engine.core.playout import CAPTURE_FIRST, UNIFORM, playouts
from engine.search.registry import ALGORITHMS


def warm() -> float:
    """Touch every kernel for both games; return the seconds it took."""
    from engine.search.controller import SearchController

    start = time.perf_counter()
    for game in ("chess", "knight"):
        state = state_from_fen(None, game)
        perft(state, 2)
        for policy in (UNIFORM, CAPTURE_FIRST):
            playouts(state, 1, new_rng(0), 20, policy)
        for name in ALGORITHMS:
            controller = SearchController(game, algorithm=name, tree_size=8)
            controller.search(iterations=64 if name != "alphabeta" else 2000)
            controller.step()
    return time.perf_counter() - start
