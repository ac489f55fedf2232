"""Compile (or load from the on-disk cache) every numba kernel ahead of use.

A cold start compiles for tens of seconds; a server warms in its lifespan
and the Docker image warms at build time so the first search a user starts
is already fast.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.core.bits import new_rng
from engine.core.perft import perft
from engine.core.playout import CAPTURE_FIRST, UNIFORM, playouts
from engine.rules.convert import state_from_fen
from engine.search.registry import ALGORITHMS

if TYPE_CHECKING:
    from engine.search.controller import SearchController

Progress = Callable[[int, int, str], None]


def play_first_move(controller: SearchController) -> None:
    """Advance the root by a legal move, keeping its subtree: tree reuse has kernels of
    its own, which a search alone never touches — left out, the first move a game plays
    after a fresh install compiled them (0.7 s, measured), inside an engine's clock."""
    controller.play(next(iter(controller.board.legal_moves)).uci())


def warm(progress: Progress | None = None) -> float:
    """Touch every kernel for both games; return the seconds it took.

    ``progress(done, total, label)`` is called before each part (and once at the end with
    ``done == total``), so a server can tell its first visitors how far a cold start is.
    """
    from engine.search.controller import SearchController

    report = progress or (lambda done, total, label: None)
    total = 2 * (2 + len(ALGORITHMS))
    done = 0
    start = time.perf_counter()
    for game in ("chess", "knight"):
        report(done, total, f"{game}: move generation and playouts")
        state = state_from_fen(None, game)
        perft(state, 2)
        for policy in (UNIFORM, CAPTURE_FIRST):
            playouts(state, 1, new_rng(0), 20, policy)
        done += 2
        for name in ALGORITHMS:
            report(done, total, f"{game}: {name}")
            controller = SearchController(game, algorithm=name, tree_size=8)
            # MCTS iterations each reach a leaf; alpha-beta's "iterations" are nodes, and
            # 2,000 of them reach its quiescence search
            controller.search(iterations=64 if controller.algorithm.mcts else 2000)
            controller.step()
            play_first_move(controller)
            done += 1
    report(total, total, "ready")
    return time.perf_counter() - start
