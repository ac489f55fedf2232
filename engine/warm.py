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
  far a cold start is;
* with ``jobs=2`` a second process compiles every other algorithm meanwhile (``make
  setup``, ``canopy warm``, the test suite): a cold compile on two cores takes about the
  time of the default opponent's alone.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING

from engine.core.bits import new_rng
from engine.core.perft import perft
from engine.core.playout import CAPTURE_FIRST, UNIFORM, playouts
from engine.rules.convert import state_from_fen
from engine.search.registry import ALGORITHMS, DEFAULT_ALGORITHM

if TYPE_CHECKING:
    from engine.search.controller import SearchController

Progress = Callable[[int, int, str], None]
Part = tuple[str, Callable[[], None]]
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


def parts(only: Collection[str] | None = None, *, move_generation: bool = True) -> list[Part]:
    """What :func:`warm` compiles, in order: the default opponent in both games (the first
    game a class plays), move generation and playouts (perft, ``canopy bench``), then
    every other algorithm; ``only`` these algorithms when given."""
    names = [n for n in ALGORITHMS if only is None or n in only]
    first = [n for n in names if n == DEFAULT_ALGORITHM]
    rest = [n for n in names if n != DEFAULT_ALGORITHM]
    out: list[Part] = [(f"{game}: {name}", _part(game, name)) for name in first for game in GAMES]
    if move_generation:
        out += [(f"{game}: move generation and playouts", _movegen_part(game)) for game in GAMES]
    out += [(f"{game}: {name}", _part(game, name)) for game in GAMES for name in rest]
    return out


def _part(game: str, algorithm: str) -> Callable[[], None]:
    return lambda: _touch(game, algorithm)


def _movegen_part(game: str) -> Callable[[], None]:
    return lambda: _move_generation(game)


def warm(progress: Progress | None = None, *, jobs: int = 1) -> float:
    """Touch every kernel for both games; return the seconds it took.

    ``progress(done, total, label)`` is called before each part (and once at the end with
    ``done == total``), so a server or a terminal can tell how far a cold start is. With
    ``jobs`` of 2 or more, a second process compiles every algorithm but the default
    while this one compiles the default's kernels (the larger share: about 60 % of a
    cold compile) and move generation; the last part is waiting for it.
    """
    report = progress or (lambda done, total, label: None)
    start = time.perf_counter()
    helper = None
    if jobs >= 2:
        others = [n for n in ALGORITHMS if n != DEFAULT_ALGORITHM]
        helper = subprocess.Popen([sys.executable, "-m", "engine.warm", "--only", *others])
        todo = parts(only=[DEFAULT_ALGORITHM])
    else:
        todo = parts()
    total = len(todo) + (1 if helper else 0)
    try:
        for done, (label, run) in enumerate(todo):
            report(done, total, label)
            run()
    finally:
        if helper is not None:
            report(len(todo), total, "the other algorithms, in a second process")
            if helper.wait() != 0:
                raise RuntimeError("compiling the other algorithms' kernels failed")
    report(total, total, "ready")
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    """``python -m engine.warm [--only NAME …]``: the second process of :func:`warm`."""
    parser = argparse.ArgumentParser(description="compile these algorithms' kernels")
    parser.add_argument("--only", nargs="*", default=None, metavar="NAME")
    args = parser.parse_args(argv)
    for _, run in parts(only=args.only, move_generation=False):
        run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
