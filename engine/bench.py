"""The benchmark suite behind ``canopy bench``.

Every figure is measured beside a python-chess baseline doing the same work in
the same run, so the ratio means something on any machine. These are
benchmarks, never timed assertions: tests only check that they run.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from typing import cast

import chess
import numpy as np

from engine import baseline
from engine.core.bits import new_rng
from engine.core.perft import perft
from engine.core.playout import CAPTURE_FIRST, DEFAULT_PLY_CAP, UNIFORM, playouts
from engine.rules.convert import state_from_fen
from engine.rules.knight import KnightChessBoard
from engine.search.algorithm import Worker


@dataclass(frozen=True)
class BenchResult:
    name: str
    value: float
    unit: str
    baseline: float | None  # python-chess doing the same work, same unit
    ratio: float | None  # value / baseline
    note: str = ""
    baseline_label: str = "python-chess"  # what the baseline is: python-chess unless stated

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def _result(
    name: str,
    value: float,
    unit: str,
    baseline: float | None,
    note: str = "",
    label: str = "python-chess",
) -> BenchResult:
    ratio = value / baseline if baseline else None
    return BenchResult(name, value, unit, baseline, ratio, note, label if baseline else "")


def _timed(fn: Callable[[], object], min_seconds: float) -> tuple[int, float]:
    """Call ``fn`` until ``min_seconds`` have passed; return (calls, seconds)."""
    calls, start = 0, time.perf_counter()
    while True:
        fn()
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return calls, elapsed


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
    baseline.perft(board, depth)
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
        lambda: baseline.playout(board_class(), prng, DEFAULT_PLY_CAP, policy == CAPTURE_FIRST),
        seconds,
    )
    theirs = calls / elapsed
    name = f"{game} random playouts ({policy_name}, {DEFAULT_PLY_CAP}-ply cap)"
    return _result(name, ours, "playouts/s", theirs)


def _controller_rate(
    algorithm: str,
    threads: int,
    iterations: int,
    game: str = "chess",
    params: dict[str, object] | None = None,
) -> float:
    from engine.search.controller import SearchController

    def make(seed: int) -> SearchController:
        return SearchController(
            game, algorithm=algorithm, params=params, threads=threads, seed=seed, tree_size=0
        )

    make(1).search(iterations=threads * 20)  # load the kernels
    controller = make(2)
    start = time.perf_counter()
    info = controller.search(iterations=iterations)
    return info.iterations / (time.perf_counter() - start)


def bench_uct(quick: bool) -> BenchResult:
    """``uct`` from the chess start, 200-ply uniform playouts, beside python-chess UCT."""
    ours = _controller_rate("uct", 1, 10_000 if quick else 60_000)
    board = chess.Board()
    reference = baseline.PyChessUCT(board, 1 / math.sqrt(2), DEFAULT_PLY_CAP, False, seed=1)
    calls, elapsed = _timed(reference.iterate, 0.5 if quick else 3.0)
    return _result(
        "uct iterations (chess start, 200-ply playouts)", ours, "iterations/s", calls / elapsed
    )


def bench_threads(quick: bool) -> BenchResult:
    """Root parallelism: 2 threads against 1 on the same total number of iterations."""
    iterations = 10_000 if quick else 60_000
    one = _controller_rate("uct", 1, iterations)
    two = _controller_rate("uct", 2, iterations)
    return _result(
        "uct 2 threads vs 1 (chess start)", two, "iterations/s", one,
        note="baseline is our own single-thread rate; the ratio is the speed-up",
        label="1 thread",
    )  # fmt: skip


def bench_algorithms(quick: bool) -> list[BenchResult]:
    out = []
    for algorithm, unit in (("uct-minimax", "iterations/s"), ("bfms", "iterations/s"),
                            ("mcts", "iterations/s"), ("alphabeta", "nodes/s")):  # fmt: skip
        budget = {"uct-minimax": 2000, "bfms": 20_000, "mcts": 10_000, "alphabeta": 500_000}[
            algorithm
        ]
        rate = _controller_rate(algorithm, 1, budget if quick else budget * 5)
        out.append(_result(f"{algorithm} (chess start)", rate, unit, None))
    return out


def bench_memory(quick: bool) -> list[BenchResult]:
    """The tree's cost per node two ways: per allocated slot (the fields, by construction)
    and per node a real search used (what doubling and its slack cost in practice)."""
    from engine.search.controller import SearchController
    from engine.search.tree import BYTES_PER_NODE

    iterations = 2000 if quick else 20_000
    controller = SearchController("chess", algorithm="bfms", seed=1, tree_size=0)
    controller.search(iterations=iterations)
    tree = cast(Worker, controller.workers[0]).tree
    return [
        _result(
            "tree bytes per node", tree.memory_bytes / tree.capacity, "bytes", None,
            note=f"{BYTES_PER_NODE} bytes of fields per allocated node",
        ),
        _result(
            "tree bytes per used node", tree.memory_bytes / max(1, tree.used), "bytes", None,
            note=f"bfms, {iterations:,} iterations from the chess start: {tree.used:,} nodes "
            f"used of {tree.capacity:,} allocated ({tree.memory_bytes / 2**20:.1f} MiB)",
        ),
    ]  # fmt: skip


def _positions(game: str, count: int) -> np.ndarray:
    """Positions a search meets: each match opening followed by seeded random plies."""
    from engine.learn.players import opening_state
    from engine.match.openings import load_openings

    fens = [o.fen for o in load_openings(None, game)]
    return np.array([opening_state(fens[i % len(fens)], game, 7, i, 6) for i in range(count)])


def _learned_calls(game: str, states: np.ndarray) -> tuple[Callable[[], object], str]:
    """A call of the learned evaluation on every state: the search's own kernel on the
    weights the engine loaded, or without any the untrained network passed as arrays
    (the same arithmetic, so the same cost)."""
    from engine.core.state import EVAL, LEARNED_EVAL
    from engine.eval.evaluate import batch_evaluate
    from engine.eval.learned_logits import batch_logits_of
    from engine.eval.learned_weights import shipped
    from engine.learn.chessnet import ChessModel
    from engine.learn.ntuple import Model, tuple_squares

    if shipped(game)[0] is not None:
        learned = states.copy()
        learned[:, EVAL] = LEARNED_EVAL
        return lambda: batch_evaluate(learned), "the loaded weights"
    model = ChessModel() if game == "chess" else Model(tuple_squares("pst"))
    batch = batch_logits_of(model.unpack(model.start(), "", {}))
    return lambda: batch(states), "no weights loaded: the untrained network"


def bench_learned(quick: bool) -> list[BenchResult]:
    """The learned evaluation's cost, both games: calls per second hand and learned (beside
    a material-and-mobility evaluation in python-chess), and ``mcts`` iterations per second
    with ``eval=learned`` beside ``eval=hand`` (when the game's weights are loaded)."""
    from engine.eval.evaluate import batch_evaluate
    from engine.eval.learned_weights import shipped
    from engine.rules.convert import state_to_fen
    from engine.rules.games import get_game

    out = []
    seconds = 0.3 if quick else 1.5
    for game in ("chess", "knight"):
        states = _positions(game, 2000)
        boards = [get_game(game).board(state_to_fen(s)) for s in states[:200]]

        def theirs_once(b: list = boards) -> list:
            return [baseline.evaluate(x) for x in b]

        calls, elapsed = _timed(theirs_once, seconds)
        theirs = calls * len(boards) / elapsed
        learned, note = _learned_calls(game, states)
        for label, fn in (("hand", lambda s=states: batch_evaluate(s)), ("learned", learned)):
            fn()  # compile or load
            calls, elapsed = _timed(fn, seconds)
            rate = calls * len(states) / elapsed
            out.append(
                _result(
                    f"{game} evaluation calls ({label})", rate, "calls/s", theirs,
                    note=f"{1e9 / rate:.0f} ns a call"
                    + (f"; {note}" if label == "learned" else "")
                    + "; baseline: material, centralisation and mobility in python-chess",
                )
            )  # fmt: skip
        if shipped(game)[0] is None:
            continue
        iterations = 3000 if quick else 15_000
        hand = _controller_rate("mcts", 1, iterations, game, {"eval": "hand"})
        rate = _controller_rate("mcts", 1, iterations, game, {"eval": "learned"})
        out.append(
            _result(
                f"mcts eval=learned ({game} start)", rate, "iterations/s", hand,
                note="baseline is mcts with eval=hand; the ratio is the share of its speed kept",
                label="eval=hand",
            )
        )  # fmt: skip
    return out


def _game_lines(count: int, plies: int) -> np.ndarray:
    """``count`` seeded random chess games of ``plies`` plies from the match openings, one
    position after another (what a search's line looks like to an incremental update)."""
    from engine.core.walk import random_line

    rng = np.random.default_rng(5)
    out = []
    for start in _positions("chess", count):
        out += random_line(start, plies, rng)[:plies]
    return np.array(out)


def bench_nnue(quick: bool) -> list[BenchResult]:
    """The NNUE's cost in chess: evaluations per second with the accumulator updated from
    the previous position and summed afresh, beside the hand evaluation on the same
    positions; and, with a network loaded, ``alphabeta`` nodes and ``mcts`` iterations per
    second with ``eval=nnue`` beside ``eval=hand``."""
    from engine.eval.evaluate import batch_evaluate
    from engine.eval.nnue import kernel_arrays, line_logits_with
    from engine.eval.nnue_weights import shipped
    from engine.learn.nnue_fit import random_network

    seconds = 0.3 if quick else 1.5
    line = _game_lines(40, 60)
    net, _ = shipped()
    arrays = kernel_arrays(net if net is not None else random_network(128))
    note = f"H = {arrays[0].shape[1] - 1}" + ("" if net else "; no network loaded: a random one")
    batch_evaluate(line)  # compile or load
    calls, elapsed = _timed(lambda: batch_evaluate(line), seconds)
    hand = calls * len(line) / elapsed
    out = []
    for label, incremental in (("updated", True), ("fresh", False)):

        def run(i: bool = incremental) -> float:
            return float(line_logits_with(line, i, *arrays))

        run()  # compile or load
        calls, elapsed = _timed(run, seconds)
        rate = calls * len(line) / elapsed
        out.append(
            _result(
                f"chess nnue evaluations ({label})", rate, "calls/s", hand,
                note=f"{1e9 / rate:.0f} ns a call; {note}", label="eval=hand",
            )
        )  # fmt: skip
    if net is None:
        return out
    searches = (("alphabeta", 400_000, "nodes/s"), ("mcts", 15_000, "iterations/s"))
    for algorithm, budget, unit in searches:
        n = budget // 5 if quick else budget
        base = _controller_rate(algorithm, 1, n, "chess", {"eval": "hand"})
        rate = _controller_rate(algorithm, 1, n, "chess", {"eval": "nnue"})
        out.append(
            _result(
                f"{algorithm} eval=nnue (chess start)", rate, unit, base,
                note=f"baseline is {algorithm} with eval=hand: the share of its speed kept",
                label="eval=hand",
            )
        )  # fmt: skip
    return out


BENCHMARKS: dict[str, Callable[[bool], BenchResult | list[BenchResult]]] = {
    "perft": bench_perft,
    "chess-playouts": lambda quick: bench_playouts("chess", quick),
    "knight-playouts": lambda quick: bench_playouts("knight", quick),
    "uct": bench_uct,
    "threads": bench_threads,
    "algorithms": bench_algorithms,
    "memory": bench_memory,
    "learned": bench_learned,
    "nnue": bench_nnue,
}


def register(name: str, fn: Callable[[bool], BenchResult | list[BenchResult]]) -> None:
    """Add a benchmark to the suite (search and app benchmarks register themselves)."""
    BENCHMARKS[name] = fn


def run(names: list[str] | None = None, quick: bool = False) -> Iterator[BenchResult]:
    """Run the named benchmarks (all by default), yielding each result as it is ready."""
    for name in names or list(BENCHMARKS):
        if name not in BENCHMARKS:
            raise KeyError(f"unknown benchmark {name!r}; known: {', '.join(BENCHMARKS)}")
        produced = BENCHMARKS[name](quick)
        yield from produced if isinstance(produced, list) else [produced]
