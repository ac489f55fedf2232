"""The benchmark suite behind ``canopy bench``.

Every figure is measured beside a python-chess baseline doing the same work in
the same run, so the ratio means something on any machine. These are
benchmarks, never timed assertions: tests only check that they run.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass

import chess

from engine.core.bits import new_rng
from engine.core.convert import state_from_fen
from engine.core.perft import perft
from engine.core.playout import CAPTURE_FIRST, DEFAULT_PLY_CAP, UNIFORM, playouts
from engine.rules.knight import KnightChessBoard


@dataclass(frozen=True)
class BenchResult:
    name: str
    value: float
    unit: str
    baseline: float | None  # python-chess doing the same work, same unit
    ratio: float | None  # value / baseline
    note: str = ""

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def _result(
    name: str, value: float, unit: str, baseline: float | None, note: str = ""
) -> BenchResult:
    ratio = value / baseline if baseline else None
    return BenchResult(name, value, unit, baseline, ratio, note)


def _timed(fn: Callable[[], object], min_seconds: float) -> tuple[int, float]:
    """Call ``fn`` until ``min_seconds`` have passed; return (calls, seconds)."""
    calls, start = 0, time.perf_counter()
    while True:
        fn()
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return calls, elapsed


# ---------------------------------------------------------------- python-chess baselines


def pychess_perft(board: chess.Board, depth: int) -> int:
    """Perft with python-chess, leaves counted at the last ply like ours."""
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += pychess_perft(board, depth - 1)
        board.pop()
    return total


def pychess_playout(
    board: chess.Board, rng: random.Random, ply_cap: int, capture_first: bool
) -> None:
    """A random playout with python-chess, ending on the same rules as the numba core."""
    knight = isinstance(board, KnightChessBoard)
    for _ in range(ply_cap):
        moves = list(board.legal_moves)  # empty once a knight-chess game has ended
        if not moves:
            return
        if not knight and (board.is_insufficient_material() or board.halfmove_clock >= 100):
            return
        if capture_first:
            captures = [m for m in moves if board.is_capture(m)]
            moves = captures or moves
        board.push(rng.choice(moves))


# ---------------------------------------------------------------- the benchmarks


def bench_perft(quick: bool) -> BenchResult:
    depth = 4 if quick else 5
    s = state_from_fen(None)
    perft(s, 2)  # compile / load the cache outside the timing
    start = time.perf_counter()
    nodes = perft(s, depth)
    ours = nodes / (time.perf_counter() - start)
    board = chess.Board()
    start = time.perf_counter()
    pychess_perft(board, depth)
    theirs = nodes / (time.perf_counter() - start)
    return _result(f"chess perft startpos depth {depth}", ours, "nodes/s", theirs)


def bench_playouts(game: str, quick: bool) -> BenchResult:
    policy = CAPTURE_FIRST if game == "knight" else UNIFORM
    policy_name = "capture_first" if policy == CAPTURE_FIRST else "uniform"
    s = state_from_fen(None, game)
    rng = new_rng(1)
    playouts(s, 2, rng, DEFAULT_PLY_CAP, policy)
    seconds = 0.5 if quick else 2.0
    batch = 500
    calls, elapsed = _timed(lambda: playouts(s, batch, rng, DEFAULT_PLY_CAP, policy), seconds)
    ours = calls * batch / elapsed
    prng = random.Random(1)
    board_class = KnightChessBoard if game == "knight" else chess.Board
    calls, elapsed = _timed(
        lambda: pychess_playout(board_class(), prng, DEFAULT_PLY_CAP, policy == CAPTURE_FIRST),
        seconds,
    )
    theirs = calls / elapsed
    name = f"{game} random playouts ({policy_name}, {DEFAULT_PLY_CAP}-ply cap)"
    return _result(name, ours, "playouts/s", theirs)


BENCHMARKS: dict[str, Callable[[bool], BenchResult]] = {
    "perft": bench_perft,
    "chess-playouts": lambda quick: bench_playouts("chess", quick),
    "knight-playouts": lambda quick: bench_playouts("knight", quick),
}


def register(name: str, fn: Callable[[bool], BenchResult]) -> None:
    """Add a benchmark to the suite (search and app benchmarks register themselves)."""
    BENCHMARKS[name] = fn


def run(names: list[str] | None = None, quick: bool = False) -> Iterator[BenchResult]:
    """Run the named benchmarks (all by default), yielding each result as it is ready."""
    for name in names or list(BENCHMARKS):
        if name not in BENCHMARKS:
            raise KeyError(f"unknown benchmark {name!r}; known: {', '.join(BENCHMARKS)}")
        yield BENCHMARKS[name](quick)
