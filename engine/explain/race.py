"""An algorithm race: one position searched by two configurations at once, kept in step.

Both searches run at the same time (each in its own controller, so on a
2-core machine each gets a core) in *rounds*: each round gives both the same
number of iterations (``sync="iterations"``) or the same wall time
(``sync="time"``), then a :class:`RaceInfo` pairs their snapshots. Iterations
are the fair yardstick between two MCTS settings; time is the fair one
between algorithms whose iterations cost different amounts (for alphabeta an
"iteration" is a node).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from engine.errors import CanopyError, InvalidParameterError
from engine.search.controller import SearchController
from engine.search.info import SearchInfo
from engine.search.registry import validate_params

SYNCS = ("iterations", "time")


@dataclass(frozen=True)
class Contender:
    algorithm: str
    params: Mapping[str, Any] = field(default_factory=dict)
    threads: int = 1
    label: str = ""


@dataclass(frozen=True)
class RaceInfo:
    a: SearchInfo
    b: SearchInfo
    sync: str
    round: int
    running: bool
    agree: bool  # both would play the same move now
    # Each side's top moves with their rank in the other's table (None: not searched there).
    ranks_a: tuple[tuple[str, int, int | None], ...]
    ranks_b: tuple[tuple[str, int, int | None], ...]
    labels: tuple[str, str]

    def to_dict(self, *, tree: bool = False) -> dict[str, Any]:
        out = asdict(self)
        out["a"] = self.a.to_dict(tree=tree)
        out["b"] = self.b.to_dict(tree=tree)
        return out


def _ranks(own: SearchInfo, other: SearchInfo, top: int) -> tuple[tuple[str, int, int | None], ...]:
    where = {m.move: i for i, m in enumerate(other.moves)}
    return tuple((m.move, i, where.get(m.move)) for i, m in enumerate(own.moves[:top]))


class Race:
    def __init__(
        self,
        game: str,
        fen: str | None,
        a: Contender,
        b: Contender,
        *,
        moves: Sequence[str] = (),
        sync: str = "iterations",
        round_iterations: int = 500,
        round_ms: float = 100.0,
        seed: int = 0,
        node_budget: int = 2_000_000,
        tree_size: int = 0,
        on_info: Callable[[RaceInfo], None] | None = None,
        top: int = 8,
    ) -> None:
        if sync not in SYNCS:
            raise InvalidParameterError(f"sync must be one of {', '.join(SYNCS)}; got {sync!r}")
        if round_iterations < 1 or round_ms <= 0:
            raise InvalidParameterError("round_iterations and round_ms must be positive")
        self.sync = sync
        self.round_iterations = int(round_iterations)
        self.round_ms = float(round_ms)
        self.on_info = on_info
        self.top = top
        self.labels = labels(game, a, b)
        self.controllers = tuple(
            SearchController(
                game, fen, moves=moves, algorithm=c.algorithm, params=c.params,
                threads=c.threads, seed=seed, node_budget=node_budget, tree_size=tree_size,
                info_interval=3600.0,  # the race publishes, per round
            )
            for c in (a, b)
        )  # fmt: skip
        self._round = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._latest: RaceInfo | None = None

    # ------------------------------------------------------------ running
    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, *, iterations: int | None = None, movetime_ms: float | None = None) -> None:
        """Race in the background until each side has had ``iterations`` / ``movetime_ms``."""
        if self.running:
            raise CanopyError("the race is already running")
        self._stop.clear()
        self._thread = threading.Thread(
            target=self._run, args=(iterations, movetime_ms), name="canopy-race", daemon=True
        )
        self._thread.start()

    def run(self, *, iterations: int | None = None, movetime_ms: float | None = None) -> RaceInfo:
        """Race to the limit in the caller's thread and return the final pairing."""
        self._run(iterations, movetime_ms)
        return self.info()

    def stop(self) -> RaceInfo:
        self._stop.set()
        for controller in self.controllers:
            controller.stop()
        if self._thread is not None:
            self._thread.join()
        return self.info()

    def close(self) -> None:
        self.stop()
        for controller in self.controllers:
            controller.close()

    def info(self) -> RaceInfo:
        latest = self._latest
        if latest is None:
            latest = self._latest = self._pair(running=self.running)
        return latest

    def play(self, uci: str) -> None:
        """Advance both searches by a move (each reuses its subtree)."""
        self.stop()
        for controller in self.controllers:
            controller.play(uci)
        self._round = 0
        self._latest = None

    # ------------------------------------------------------------ internals
    def _pair(self, running: bool) -> RaceInfo:
        a, b = (c.info() for c in self.controllers)
        return RaceInfo(
            a=a, b=b, sync=self.sync, round=self._round, running=running,
            agree=a.bestmove == b.bestmove,
            ranks_a=_ranks(a, b, self.top), ranks_b=_ranks(b, a, self.top),
            labels=self.labels,
        )  # fmt: skip

    def _run(self, iterations: int | None, movetime_ms: float | None) -> None:
        spent_iterations = 0
        spent_ms = 0.0
        start = time.perf_counter()
        while not self._stop.is_set():
            if self.sync == "iterations":
                step = self.round_iterations
                if iterations is not None:
                    step = min(step, iterations - spent_iterations)
                if step <= 0:
                    break
                for c in self.controllers:
                    c.start(iterations=step)
                spent_iterations += step
            else:
                step_ms = self.round_ms
                if movetime_ms is not None:
                    step_ms = min(step_ms, movetime_ms - spent_ms)
                if step_ms <= 0:
                    break
                for c in self.controllers:
                    c.start(movetime_ms=step_ms)
                spent_ms += step_ms
            if self._stop.is_set():
                # stop() landed between the loop's check and the starts above: it set the
                # flag before stopping the controllers, so either it stopped these searches
                # or the flag is seen here — never a whole round run after a stop
                for c in self.controllers:
                    c.stop()
            for c in self.controllers:
                c.wait()
            self._round += 1
            elapsed_ms = (time.perf_counter() - start) * 1000.0
            if movetime_ms is not None and self.sync == "iterations" and elapsed_ms >= movetime_ms:
                break
            if any(
                c.info().stop_reason in ("node budget", "terminal", "depth", "proven")
                for c in self.controllers
            ):
                break
            self._publish(running=True)
        self._publish(running=False)

    def _publish(self, running: bool) -> None:
        self._latest = self._pair(running)
        if self.on_info is not None:
            self.on_info(self._latest)


def label(game: str, c: Contender) -> str:
    """A short name: the algorithm, the parameters that differ from its defaults, threads.

    ``uct``, ``uct (c=2)``, ``bfms ×2 threads``: what a reader needs to tell two
    contenders apart, nothing they share with every other run of the algorithm.
    """
    defaults = validate_params(c.algorithm, {}, game)
    changed = [
        f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
        for k, v in c.params.items()
        if defaults.get(k) != v
    ]
    text = c.algorithm + (f" ({', '.join(changed)})" if changed else "")
    return text + (f" ×{c.threads} threads" if c.threads > 1 else "")


def labels(game: str, a: Contender, b: Contender) -> tuple[str, str]:
    """Both contenders' labels (their own, else :func:`label`), never the same twice."""
    first, second = a.label or label(game, a), b.label or label(game, b)
    if first == second:
        second += " (B)"
    return first, second
