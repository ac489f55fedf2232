"""An algorithm race in a live game: two searches of the game's position, side by side.

The engine's :class:`engine.explain.race.Race` runs both configurations at
once in rounds (equal iterations or equal wall time per round) and pairs
their snapshots; this module is the app's thin wrapper around it. A
:class:`RaceRunner` belongs to one live game (``app.live``), which hands it
what it needs (the server's settings, the search pool, the game's watchers)
and never the game itself:

* :meth:`RaceRunner.plan` validates the request (algorithms, parameters,
  threads and budget within the server's limits) before anything changes;
* it takes one slot of the search pool for the race before building it (a
  race is refused, not queued, when every slot is busy: a teacher wants to
  know at once);
* the race's ``on_info`` fires in the race thread and only hands the pairing
  to the event loop, where it is shaped once into a ``race`` frame and put
  in every watcher's race slot (latest only, like stats).

A race is about the position it started from: the game stops it before any
request that changes the game or starts the game's own search, and the last
frame stays available (with its ``fen``) for anyone who connects later.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.bounds import check_bound, check_threads, validate_params
from app.connection import Connection
from app.pool import SearchPool
from app.schemas import RaceFrame
from app.settings import Settings
from app.streaming import dumps, move_row, num
from engine.errors import CanopyError, GameOverError, InvalidParameterError
from engine.play import GameSession

if TYPE_CHECKING:
    from engine.explain.race import Contender, Race, RaceInfo
    from engine.search.info import MoveStats, SearchInfo

log = logging.getLogger("canopy.race")

#: Root moves per side in a race frame.
RACE_MOVES = 12
#: Plies of each row's PV in a race frame.
RACE_PV = 8
#: Default budgets per side when the request names none.
DEFAULT_ITERATIONS = 20_000
DEFAULT_MOVETIME_MS = 3_000
#: Publish about this often in ``time`` races (each round is this long).
ROUND_MS = 100.0


class BusyError(CanopyError):
    """Every search slot of the server is in use."""

    code = "busy"


def _round_iterations(budget: int) -> int:
    """Rounds small enough for a smooth display, large enough to cost nothing (~40 rounds)."""
    return max(50, min(5_000, budget // 40))


@dataclass(frozen=True)
class RacePlan:
    """A validated race request: who races, kept in step how, for how long."""

    contenders: tuple[Contender, Contender]
    sync: str
    budget: dict[str, int]  # {"iterations": n} or {"movetime_ms": ms}


class RaceRunner:
    """The race of one live game (at most one at a time)."""

    def __init__(
        self,
        settings: Settings,
        pool: SearchPool,
        release: Callable[[Hashable], None],
        connections: set[Connection],
    ) -> None:
        self.settings = settings
        self.pool = pool
        self._release_slot = release  # gives the slot back and admits whoever waits
        self.connections = connections  # the game's watchers (the same set, shared)
        self.race: Race | None = None
        self.seq = 0
        self.latest: str | None = None  # the last race frame, for late joiners
        self.fen: str | None = None
        self.budget: dict[str, int] = {}
        self.running = False
        self.closed = False
        self._holds_slot = False

    def __hash__(self) -> int:  # a job of the search pool
        return id(self)

    # ---------------------------------------------------------------- watchers
    def attach(self, conn: Connection) -> None:
        if self.latest is not None:
            conn.outbox.put_race(self.latest)

    # ---------------------------------------------------------------- requests
    def plan(self, frame: RaceFrame, session: GameSession) -> RacePlan:
        """Validate a ``start`` request against the game and the server's limits."""
        from engine.explain.race import Contender

        settings = self.settings
        if session.is_over:
            raise GameOverError(f"the game is over ({session.result}); nothing to race")
        if frame.a is None or frame.b is None:
            raise InvalidParameterError("a race needs two contenders, 'a' and 'b'")
        contenders = []
        for key, c in (("a", frame.a), ("b", frame.b)):
            params = validate_params(c.algorithm, dict(c.params or {}), session.game.name)
            threads = check_threads(settings, c.algorithm, c.threads or 1, field=f"{key}.threads")
            contenders.append(Contender(c.algorithm, params, threads, c.label or ""))
        sync = frame.sync or "iterations"
        if sync == "iterations":
            iterations = frame.iterations or DEFAULT_ITERATIONS
            check_bound(settings, "iterations", iterations)
            budget = {"iterations": iterations}
        else:
            movetime = frame.movetime_ms or DEFAULT_MOVETIME_MS
            check_bound(settings, "movetime_ms", movetime)
            budget = {"movetime_ms": movetime}
        return RacePlan((contenders[0], contenders[1]), sync, budget)

    async def start(self, plan: RacePlan, session: GameSession) -> None:
        """Race ``session``'s position (refused when every search slot is busy).

        The caller has stopped the previous race and the game's own search.
        """
        from engine.explain.race import Race

        pool = self.pool
        # The slot is taken before the race is built (an await): a game that asks for a
        # search meanwhile queues behind the race instead of taking the slot from under it.
        if not pool.acquire(self):
            raise BusyError(
                f"all {pool.capacity} search slots of the server are busy; "
                "try the race again when one is free"
            )
        self._holds_slot = True
        loop = asyncio.get_running_loop()

        def on_info(info: RaceInfo) -> None:  # the race thread: hand over only
            with contextlib.suppress(RuntimeError):  # the loop is closed: shutting down
                loop.call_soon_threadsafe(self._on_info, race, info)

        budget = plan.budget
        try:
            race = await asyncio.to_thread(
                Race,
                session.game.name,
                session.start_fen,
                plan.contenders[0],
                plan.contenders[1],
                moves=list(session.moves),
                sync=plan.sync,
                round_iterations=_round_iterations(budget.get("iterations", 0)),
                round_ms=ROUND_MS,
                seed=session.engine.seed,
                node_budget=self.settings.node_budget,
                tree_size=0,
                on_info=on_info,
                top=RACE_MOVES,
            )
        except BaseException:
            self._release()
            raise
        self.race = race
        self.fen = session.fen
        self.budget = budget
        self.running = True
        try:
            await asyncio.to_thread(race.start, **budget)
        except Exception:
            self.running = False
            self._release()
            raise
        self._publish(race.info(), running=True)

    async def stop(self) -> None:
        """Stop the race (its last frame stays, marked not running)."""
        race = self.race
        if race is None:
            return
        was_running = self.running
        self.running = False
        info = await asyncio.to_thread(race.stop)
        self._release()
        if was_running:
            self._publish(info, running=False)

    async def close(self) -> None:
        self.closed = True
        race, self.race = self.race, None
        self.running = False
        if race is not None:
            await asyncio.to_thread(race.close)
        self._release()

    # ---------------------------------------------------------------- frames out
    def _release(self) -> None:
        if self._holds_slot:
            self._holds_slot = False
            self._release_slot(self)

    def _on_info(self, race: Race, info: RaceInfo) -> None:
        if race is not self.race or self.closed:
            return  # a late pairing of a race that was replaced
        if not info.running:
            if not self.running:
                return  # stop() publishes the final pairing itself
            self.running = False
            self._release()
        self._publish(info, running=info.running)

    def _publish(self, info: RaceInfo, *, running: bool) -> None:
        self.seq += 1
        self.latest = dumps(self.payload(info, running=running))
        for conn in list(self.connections):
            conn.outbox.put_race(self.latest)

    def payload(self, info: RaceInfo, *, running: bool) -> dict[str, Any]:
        """The ``race`` frame (docs/protocol.md)."""
        ranks = {"a": dict_ranks(info.ranks_a), "b": dict_ranks(info.ranks_b)}
        sides = {}
        for key, side, label in (("a", info.a, info.labels[0]), ("b", info.b, info.labels[1])):
            sides[key] = _side(side, label, ranks[key])
        progress = None
        if "iterations" in self.budget:
            done = min(info.a.iterations, info.b.iterations)
            progress = min(1.0, done / self.budget["iterations"])
        elif "movetime_ms" in self.budget:
            done_ms = min(info.a.elapsed_ms, info.b.elapsed_ms)
            progress = min(1.0, done_ms / self.budget["movetime_ms"])
        return {
            "type": "race",
            "seq": self.seq,
            "fen": self.fen,
            "sync": info.sync,
            "round": int(info.round),
            "running": running,
            "budget": dict(self.budget),
            "progress": num(progress, 3),
            "agree": bool(info.agree),
            "labels": list(info.labels),
            "a": sides["a"],
            "b": sides["b"],
        }


def dict_ranks(ranks: tuple[tuple[str, int, int | None], ...]) -> dict[str, int | None]:
    """move → its rank in the *other* side's table (None: the other never searched it)."""
    return {move: other for move, _own, other in ranks}


def _row(m: MoveStats, rank: int, other: dict[str, int | None]) -> dict[str, Any]:
    return {**move_row(m, RACE_PV), "rank": rank, "other_rank": other.get(m.move)}


def _side(info: SearchInfo, label: str, other: dict[str, int | None]) -> dict[str, Any]:
    best = info.moves[0] if info.moves else None
    return {
        "label": label,
        "algorithm": info.algorithm,
        "params": {k: v for k, v in info.params.items() if isinstance(v, str | int | float | bool)},
        "threads": info.threads,
        "iterations": int(info.iterations),
        "nodes": int(info.nodes),
        "nps": num(info.nps, 1),
        "elapsed_ms": num(info.elapsed_ms, 1),
        "depth": int(info.depth),
        "max_depth": int(info.max_depth),
        "stop_reason": info.stop_reason,
        "bestmove": info.bestmove,
        "best_san": best.san if best else None,
        "pv": list(info.pv[:24]),
        "pv_san": list(info.pv_san[:24]),
        "moves": [_row(m, k, other) for k, m in enumerate(info.moves[:RACE_MOVES])],
    }
