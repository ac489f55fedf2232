"""The search controller: runs a search in the background and publishes snapshots.

One controller per game. It owns the root position (a python-chess board,
for SAN and the game's history), the algorithm and its parameters, and one
worker per root-parallel thread. ``start`` launches a publishing thread that
starts the workers (each in its own thread, its numba kernel holding no GIL)
and, every ``info_interval`` seconds until they finish, builds an immutable
:class:`SearchInfo` and hands it to ``on_info``. ``stop`` raises a flag the
kernels read every iteration, so it returns within milliseconds.

Limits are counted from each ``start``: ``iterations`` (split evenly over the
threads, so a seeded search repeats exactly), ``movetime_ms``, and
``nodes`` (tree nodes in all trees; alphabeta: nodes searched). The node
*budget* caps each tree's size for the controller's lifetime; a tree that reaches it
is folded to make room (its least visited branches leave it: ``Worker.recycle``) and
the search goes on, which the snapshots say (``extra["full"] = "recycling"``); only a
budget too small to fold stops the search, with ``stop_reason="node budget"``.

The clock starts once the algorithm's kernels are compiled
(:mod:`engine.search.compiled`), and a search that runs out of time before it has a
move to play searches on until it has one: a position with legal moves always gets
a move, however short the think time.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

import chess
import numpy as np

from engine.core.state import HASH
from engine.errors import CanopyError, GameOverError, InvalidParameterError
from engine.eval.evaluate import with_eval
from engine.rules.convert import state_from_board, uci_to_move
from engine.rules.games import get_game, outcome
from engine.rules.san import SanCache
from engine.search.algorithm import SearchWorker, Worker
from engine.search.codes import DONE, EXHAUSTED, FULL, ROOT_TERMINAL, SOLVED, STOPPED
from engine.search.compiled import ensure_compiled
from engine.search.info import SearchInfo
from engine.search.record import StepRecord, record_step
from engine.search.registry import DEFAULT_ALGORITHM, get_algorithm, validate_threads
from engine.search.snapshot import build_info

InfoCallback = Callable[[SearchInfo], None]
MAX_NODE_BUDGET = 50_000_000
# Seconds between snapshots. The publishing thread builds one per interval, so a zero
# interval is a busy loop taking a core from the search (measured: 30-40 % fewer
# iterations per second on two cores); an hour is the longest any caller wants (a race,
# which publishes per round itself, asks for that).
MIN_INFO_INTERVAL = 0.001
MAX_INFO_INTERVAL = 3600.0
#: What a search does once its tree has reached the node budget (``extra["full"]`` of its
#: snapshots), in the words the status line, UCI and the command line use.
AT_BUDGET_NOTES = {
    "recycling": "the tree is full (its node budget), so its least visited branches are "
    "folded into their nodes to make room, and the search goes on",
    "deepening": "the tree is full (its node budget), so it stops growing and its leaves "
    "are searched deeper instead",
}


def validate_info_interval(value: object, name: str = "info_interval") -> float:
    """``value`` as seconds between snapshots, or :class:`InvalidParameterError` naming
    ``name`` and the allowed range."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidParameterError(f"{name} must be a number of seconds; got {value!r}")
    if not MIN_INFO_INTERVAL <= value <= MAX_INFO_INTERVAL:  # (NaN fails too)
        raise InvalidParameterError(
            f"{name} must be between {MIN_INFO_INTERVAL:g} and {MAX_INFO_INTERVAL:g} "
            f"seconds; got {value!r}"
        )
    return float(value)


def lower_priority(nice: int) -> None:
    """Raise the calling thread's niceness by ``nice`` where the OS allows (Linux threads)."""
    if nice <= 0 or not hasattr(os, "setpriority"):
        return
    with contextlib.suppress(OSError):
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + nice)


@dataclass(frozen=True)
class Limits:
    iterations: int | None = None
    movetime_ms: float | None = None
    nodes: int | None = None

    def __post_init__(self) -> None:
        for name in ("iterations", "movetime_ms", "nodes"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or value <= 0):
                raise InvalidParameterError(f"{name} must be positive; got {value!r}")


class SearchController:
    def __init__(
        self,
        game: str = "chess",
        fen: str | None = None,
        *,
        moves: Sequence[str] = (),
        algorithm: str = DEFAULT_ALGORITHM,
        params: Mapping[str, Any] | None = None,
        threads: int = 1,
        seed: int = 0,
        node_budget: int = 2_000_000,
        tree_size: int = 200,
        tree_depth: int = 64,
        on_info: InfoCallback | None = None,
        info_interval: float = 0.1,
        nice: int = 0,
    ) -> None:
        self.game = get_game(game)
        # Scheduling niceness added to the search threads (Linux: per thread). A server sets
        # it so its event loop answers promptly while searches use the spare cores.
        self.nice = max(0, min(19, int(nice)))
        if not 2 <= node_budget <= MAX_NODE_BUDGET:
            raise InvalidParameterError(
                f"node_budget must be between 2 and {MAX_NODE_BUDGET}; got {node_budget}"
            )
        self.node_budget = node_budget
        self.tree_size = max(0, int(tree_size))
        self.tree_depth = max(0, int(tree_depth))
        self.tree_thread = 0  # whose tree the snapshots' top-of-tree shows (root parallelism)
        self.on_info = on_info
        self.info_interval = info_interval  # validated by the property's setter
        self._lock = threading.RLock()
        self._stop = np.zeros(1, dtype=np.uint8)
        self._runner: threading.Thread | None = None
        self._latest: SearchInfo | None = None
        # Snapshots the publishing thread has set as ``_latest`` (guarded by _latest_lock):
        # a snapshot built on demand never replaces one published while it was built.
        self._published = 0
        self._latest_lock = threading.Lock()
        self._iterations = 0
        self._elapsed = 0.0
        self._stop_reason: str | None = None
        self._step_thread = 0
        self.root: np.ndarray
        self.workers: list[SearchWorker]
        self.algorithm = get_algorithm(algorithm)
        self.params = self.algorithm.validate(dict(params or {}), self.game.name)
        self.threads = validate_threads(algorithm, threads)
        self.seed = int(seed)
        self.board = self.game.board(fen)
        for uci in moves:
            self._push(uci)
        self._rebuild()

    # ------------------------------------------------------------ configuration
    @property
    def info_interval(self) -> float:
        """Seconds between published snapshots; callers change it while a search runs
        (the app slows it for big trees), so every assignment is checked."""
        return self._info_interval

    @info_interval.setter
    def info_interval(self, value: float) -> None:
        self._info_interval = validate_info_interval(value)

    def configure(
        self,
        *,
        algorithm: str | None = None,
        params: Mapping[str, Any] | None = None,
        threads: int | None = None,
        seed: int | None = None,
    ) -> None:
        """Change the search settings (checked first: nothing changes on error); drops the tree."""
        name = algorithm or self.algorithm.name
        new_algorithm = get_algorithm(name)
        if params is None:
            params = self.params if new_algorithm is self.algorithm else {}
        new_params = new_algorithm.validate(dict(params), self.game.name)
        new_threads = validate_threads(name, self.threads if threads is None else threads)
        with self._lock:
            self._halt()
            self.algorithm, self.params, self.threads = new_algorithm, new_params, new_threads
            if seed is not None:
                self.seed = int(seed)
            self._rebuild()

    def set_position(self, fen: str | None, moves: Sequence[str] = ()) -> None:
        """A new root (validated first). Discards the tree."""
        board = self.game.board(fen)
        for uci in moves:
            board.push(self._legal(board, uci))
        with self._lock:
            self._halt()
            self.board = board
            self._rebuild()

    def play(self, uci: str) -> None:
        """Advance the root by ``uci``, keeping that move's subtree in every tree (tree reuse)."""
        with self._lock:
            move = self._legal(self.board, uci)
            self._halt()
            core_move = uci_to_move(self.root, uci)
            self.board.push(move)
            self.root = with_eval(state_from_board(self.board), self.params)
            reused = [w.advance(core_move) for w in self.workers]
            self._sans = SanCache(self.board)
            self._reset_counters()
            self._reused = any(reused)
            self._latest = None

    # ------------------------------------------------------------ running
    @property
    def running(self) -> bool:
        runner = self._runner
        return runner is not None and runner.is_alive()

    def start(
        self,
        *,
        iterations: int | None = None,
        movetime_ms: float | None = None,
        nodes: int | None = None,
    ) -> None:
        """Search in the background until a limit, the node budget, or :meth:`stop`."""
        limits = Limits(iterations, movetime_ms, nodes)
        with self._lock:
            if self.running:
                raise CanopyError("a search is already running; stop it first")
            self._check_not_over()
            self._stop[0] = 0
            self._runner = threading.Thread(
                target=self._run, args=(limits,), name="canopy-search", daemon=True
            )
            self._runner.start()

    def search(
        self,
        *,
        iterations: int | None = None,
        movetime_ms: float | None = None,
        nodes: int | None = None,
    ) -> SearchInfo:
        """Search to a limit and return the final snapshot (blocking)."""
        self.start(iterations=iterations, movetime_ms=movetime_ms, nodes=nodes)
        return self.wait()

    def stop(self) -> SearchInfo:
        """Stop a running search (returns within milliseconds) and return the final snapshot."""
        with self._lock:
            self._halt()
            return self.info()

    def wait(self, timeout: float | None = None) -> SearchInfo:
        """Block until the running search ends by itself (or ``timeout``); the latest snapshot."""
        runner = self._runner
        if runner is not None:
            runner.join(timeout)
        return self.info()

    def step(self) -> StepRecord:
        """Exactly one iteration (on the threads' trees in turn; alphabeta: one more
        depth), with what it did recorded (``engine.explain.step`` explains it)."""
        with self._lock:
            self._halt()
            self._check_not_over()
            thread = self._step_thread % len(self.workers)
            self._step_thread += 1
            worker = self.workers[thread]
            self._stop[0] = 0
            record = record_step(
                self.algorithm, self.params, worker, self._stop, self._sans, self._iterations
            )
            if record.code == FULL:
                self._stop_reason = "node budget"
            else:
                self._iterations += record.iterations
            self._latest = self._snapshot(running=False)
            return record

    def info(self, *, rebuild: bool = False) -> SearchInfo:
        """The latest snapshot (built now if none was published, or if ``rebuild``: e.g.
        after changing ``tree_size`` or ``tree_thread`` while no search runs)."""
        latest = self._latest
        if latest is None or (rebuild and not self.running):
            with self._lock:
                seen = self._published
                built = self._snapshot(running=self.running)
                with self._latest_lock:
                    # A search may have ended (and published its final snapshot) while
                    # this one was built from the counters of its start: keep the newer.
                    if self._published == seen:
                        self._latest = built
                    latest = self._latest
        return latest

    def close(self) -> None:
        with self._lock:
            self._halt()

    # ------------------------------------------------------------ internals
    def _legal(self, board: chess.Board, uci: str) -> chess.Move:
        from engine.errors import IllegalMoveError

        try:
            move = chess.Move.from_uci(uci)
        except (ValueError, TypeError):
            raise IllegalMoveError(f"not a UCI move: {uci!r}") from None
        if move not in board.legal_moves:
            raise IllegalMoveError(f"illegal move {uci!r} in {board.fen()}")
        return move

    def _push(self, uci: str) -> None:
        self.board.push(self._legal(self.board, uci))

    def _check_not_over(self) -> None:
        result, reason = outcome(self.board)
        if result is not None:
            raise GameOverError(f"the game is over ({result}, {reason}); nothing to search")

    def _rebuild(self) -> None:
        self.root = with_eval(state_from_board(self.board), self.params)
        self.workers = [
            self.algorithm.make_worker(self.root, self.params, self.seed, k, self.node_budget)
            for k in range(self.threads)
        ]
        self._sans = SanCache(self.board)
        self._reused = False
        self._reset_counters()
        self._latest = None

    def _reset_counters(self) -> None:
        self._iterations = 0
        self._elapsed = 0.0
        self._stop_reason = None
        self._step_thread = 0
        keys = self._history_keys()
        for w in self.workers:
            w.history_keys = keys

    def _history_keys(self) -> list[int]:
        """Zobrist keys of the positions before the root, back to the last irreversible move."""
        board = self.board.copy()
        keys: list[int] = []
        while board.move_stack and len(keys) < 200:
            move = board.pop()
            keys.append(int(state_from_board(board)[HASH]))
            if board.is_zeroing(move):
                break
        keys.reverse()
        return keys

    def _halt(self) -> None:
        runner = self._runner
        if runner is not None and runner.is_alive():
            self._stop[0] = 1
            runner.join()
        self._runner = None

    @contextlib.contextmanager
    def _trees_held(self) -> Iterator[None]:
        """The workers' trees held still for a read from another thread: a fold
        (``Worker.recycle``) renumbers a tree's nodes, and a snapshot built meanwhile
        would mix two numberings. The kernels, which only add nodes, run on."""
        with contextlib.ExitStack() as stack:
            for w in self.workers:
                lock = getattr(w, "fold_lock", None)
                if lock is not None:
                    stack.enter_context(lock)
            yield

    def _snapshot(self, running: bool) -> SearchInfo:
        with self._trees_held():
            info = build_info(
                algorithm=self.algorithm,
                game=self.game.name,
                board=self.board,
                params=self.params,
                seed=self.seed,
                workers=self.workers,
                sans=self._sans,
                iterations=self._iterations,
                elapsed=self._elapsed,
                running=running,
                stop_reason=self._stop_reason,
                tree_size=self.tree_size,
                tree_depth=self.tree_depth,
                tree_thread=self.tree_thread,
            )
        full = self._at_budget()
        return replace(info, extra={**info.extra, "full": full}) if full else info

    def _at_budget(self) -> str | None:
        """What the search does at its node budget (``Worker.at_budget``): ``"recycling"``
        when a thread's tree was folded to make room, ``"deepening"`` when one searches
        on without growing; None while every tree is below its budget."""
        modes = {getattr(w, "at_budget", None) for w in self.workers}
        return next((m for m in ("recycling", "deepening") if m in modes), None)

    def _run(self, limits: Limits) -> None:
        """Publishing thread: start the workers, publish snapshots, collect the end reason."""
        workers = self.workers
        k = len(workers)
        ensure_compiled(self.algorithm, self.root, self.params)  # off the clock
        base_iterations = self._iterations
        base_elapsed = self._elapsed
        base_counts = [w.iterations for w in workers]
        start = time.perf_counter()
        deadline = start + limits.movetime_ms / 1000.0 if limits.movetime_ms else None
        codes: list[int] = [DONE] * k

        def share(total: int | None, index: int) -> int | None:
            if total is None:
                return None
            return total // k + (1 if index < total % k else 0)

        remaining = [k]
        finished = threading.Event()
        count_lock = threading.Lock()

        def work(index: int) -> None:
            lower_priority(self.nice)
            worker = workers[index]
            quota = share(limits.iterations, index)
            if not self.algorithm.mcts and limits.nodes is not None:
                # alphabeta's iterations are the nodes it searches
                node_quota = share(limits.nodes, index) or 0
                quota = node_quota if quota is None else min(quota, node_quota)
            try:
                while not self._stop[0]:
                    done_here = worker.iterations - base_counts[index]
                    chunk = (1 << 40) if quota is None else quota - done_here
                    if limits.nodes is not None and self.algorithm.mcts:
                        chunk = min(chunk, 256)
                    if chunk <= 0:
                        codes[index] = -1 if limits.iterations is None else DONE
                        return
                    _, code = worker.run(chunk, self._stop)
                    codes[index] = code
                    if code in (FULL, ROOT_TERMINAL, EXHAUSTED, STOPPED, SOLVED):
                        return
                    if (
                        self.algorithm.mcts
                        and limits.nodes is not None
                        and self._node_count() >= limits.nodes
                    ):
                        self._stop[0] = 1
                        codes[index] = -1
                        return
            finally:
                with count_lock:
                    remaining[0] -= 1
                    if remaining[0] == 0:
                        finished.set()

        threads = [
            threading.Thread(target=work, args=(i,), name=f"canopy-worker-{i}", daemon=True)
            for i in range(k)
        ]
        for t in threads:
            t.start()
        # The deadline has a thread of its own: this one may be building a snapshot of a
        # big tree when it passes, and the kernels would search on until that was done.
        alarm = None
        if deadline is not None:
            alarm = threading.Timer(
                max(0.0, deadline - time.perf_counter()), self._stop_at_deadline, (finished,)
            )
            alarm.daemon = True
            alarm.start()
        next_publish = start + self.info_interval
        while not finished.is_set():
            now = time.perf_counter()
            if finished.wait(max(0.0, next_publish - now)):
                break
            now = time.perf_counter()
            if now >= next_publish:
                self._count(workers, base_iterations, base_counts, base_elapsed, now - start)
                self._publish(running=True)
                next_publish = now + self.info_interval
        end = time.perf_counter()
        if alarm is not None:
            alarm.cancel()
        for t in threads:
            t.join()
        self._count(workers, base_iterations, base_counts, base_elapsed, end - start)
        self._stop_reason = self._reason(codes, limits, deadline, end)
        self._publish(running=False)

    def _stop_at_deadline(self, finished: threading.Event) -> None:
        """The deadline has passed: stop, once there is a move to play (a search that has
        none yet goes on until it has one, looking every millisecond)."""
        while not self._has_move():
            if finished.wait(0.001):
                return
        self._stop[0] = 1

    def _has_move(self) -> bool:
        """Whether a snapshot now would name a best move (a root move to rank)."""
        with self._trees_held():
            return any(w.root_children() for w in self.workers)

    def _count(
        self,
        workers: list[Any],
        base: int,
        base_counts: list[int],
        base_elapsed: float,
        elapsed: float,
    ) -> None:
        self._iterations = base + sum(
            w.iterations - c for w, c in zip(workers, base_counts, strict=True)
        )
        self._elapsed = base_elapsed + elapsed

    def _node_count(self) -> int:
        """Tree nodes in all trees (MCTS workers only)."""
        return sum(cast(Worker, w).tree.used for w in self.workers)

    def _reason(self, codes: list[int], limits: Limits, deadline: float | None, end: float) -> str:
        if FULL in codes:
            return "node budget"
        if ROOT_TERMINAL in codes:
            return "terminal"
        if SOLVED in codes:
            return "proven"
        if EXHAUSTED in codes:
            return "depth"
        if -1 in codes:
            return "nodes"
        if deadline is not None and end >= deadline:
            return "time"
        if STOPPED in codes:
            return "stopped"
        if limits.iterations is not None:
            return "iterations"
        return "stopped"

    def _publish(self, running: bool) -> None:
        info = self._snapshot(running=running)
        with self._latest_lock:
            self._latest = info
            self._published += 1
        callback = self.on_info
        if callback is not None:
            callback(info)

    def __enter__(self) -> SearchController:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
