"""Compile (or load from the on-disk cache) the numba kernels before any clock runs.

A cold start compiles for minutes on a small machine. Three things keep that from a
class's first game:

* :func:`warm` compiles every kernel ahead of use — ``make setup`` and the Docker build
  run it, and a server runs it in the background at start — **the default opponent
  first in both games**, so the first game can start while the others compile;
* a search compiles what it needs before its clock starts
  (:mod:`engine.search.compiled`): a think time is spent searching, never compiling (a
  search started while the warm-up compiles its algorithm waits for that compile, off
  the clock);
* each part is named as it compiles (``progress``), so a terminal or a page can say how
  far a cold start is.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.core.bits import new_rng
from engine.core.perft import perft
from engine.core.playout import CAPTURE_FIRST, UNIFORM, playouts
from engine.rules.convert import state_from_fen
from engine.search.registry import ALGORITHMS, DEFAULT_ALGORITHM

if TYPE_CHECKING:
    from engine.search.controller import SearchController

Progress = Callable[[int, int, str], None]
GAMES = ("chess", "knight")


def play_first_move(controller: SearchController) -> None:
    """Advance the root by a legal move, keeping its subtree: tree reuse has kernels of
    its own, which a search alone never touches — left out, the first move a game plays
    after a fresh install compiled them (0.7 s, measured), inside an engine's clock."""
    controller.play(next(iter(controller.board.legal_moves)).uci())


def _touch(game: str, algorithm: str) -> None:
    """A small search of each kind the app, the CLI and UCI run: search (which compiles
    the algorithm's kernels first, :mod:`engine.search.compiled`), step, tree reuse."""
    from engine.search.controller import SearchController

    controller = SearchController(game, algorithm=algorithm, tree_size=8)
    controller.search(iterations=64 if controller.algorithm.mcts else 2000)
    controller.step()
    play_first_move(controller)


def _move_generation(game: str) -> None:
    state = state_from_fen(None, game)
    perft(state, 2)
    for policy in (UNIFORM, CAPTURE_FIRST):
        playouts(state, 1, new_rng(0), 20, policy)


def parts() -> list[tuple[str, Callable[[], None]]]:
    """What :func:`warm` compiles, in order: the default opponent in both games (the first
    game a class plays), move generation and playouts (perft, ``canopy bench``), then
    every other algorithm."""
    others = [name for name in ALGORITHMS if name != DEFAULT_ALGORITHM]
    out: list[tuple[str, Callable[[], None]]] = [
        (f"{game}: {DEFAULT_ALGORITHM}", _part(game, DEFAULT_ALGORITHM)) for game in GAMES
    ]
    for game in GAMES:
        out.append((f"{game}: move generation and playouts", _movegen_part(game)))
    out += [(f"{game}: {name}", _part(game, name)) for game in GAMES for name in others]
    return out


def _part(game: str, algorithm: str) -> Callable[[], None]:
    return lambda: _touch(game, algorithm)


def _movegen_part(game: str) -> Callable[[], None]:
    return lambda: _move_generation(game)


def warm(progress: Progress | None = None) -> float:
    """Touch every kernel for both games; return the seconds it took.

    ``progress(done, total, label)`` is called before each part (and once at the end with
    ``done == total``), so a server or a terminal can tell how far a cold start is.
    """
    report = progress or (lambda done, total, label: None)
    todo = parts()
    start = time.perf_counter()
    for done, (label, run) in enumerate(todo):
        report(done, len(todo), label)
        run()
    report(len(todo), len(todo), "ready")
    return time.perf_counter() - start
