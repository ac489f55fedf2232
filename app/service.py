"""The games a server holds: creating, finding, loading and retiring them; the search pool.

Every game is in the database (``app.store``); the service keeps the ones
in use in memory as :class:`~app.live.LiveGame` objects, loads a game on
first use (one load per game however many ask at once), unloads the ones
nobody watches or touched for a while, stops searches nobody watches, and
at shutdown stops every search at once.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable, Coroutine, Hashable
from typing import Any

from app.bounds import bounds, engine_settings, tree_budget
from app.errors import GameNotFoundError, ShuttingDownError, TooManyGamesError
from app.live import LiveGame
from app.logs import background_context
from app.pool import SearchPool
from app.schemas import CreateGame
from app.settings import Settings
from app.store import SqlStore, token_hash
from app.streaming import Snapshot
from engine.play import GameSession

log = logging.getLogger("canopy.app")

#: What a game id can look like (ids are 12 hex digits; anything else is not looked up).
_ID_CHARS = frozenset("0123456789abcdefABCDEF")


class GameService:
    """Creates, finds and retires live games; owns the search pool."""

    def __init__(
        self,
        settings: Settings,
        *,
        db: SqlStore | None = None,
    ) -> None:
        self.settings = settings
        #: The games held in memory, by id (every game is also in :attr:`db`;
        #: :meth:`load` brings one back).
        self.store: dict[str, LiveGame] = {}
        self.db = db or SqlStore(settings.db_url)
        self.pool = SearchPool(settings.max_searches, on_change=self._pool_changed)
        #: True once shutdown began: no search starts, no request changes a game.
        self.stopping = False
        self._loading: dict[str, asyncio.Future[LiveGame]] = {}
        #: Called with (game, snapshot) for every snapshot (the streaming benchmark uses it).
        self.on_snapshot: Callable[[LiveGame, Snapshot], None] | None = None
        self._queue_seen: dict[str, int | None] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    # ---------------------------------------------------------------- settings
    def limits(self) -> dict[str, Any]:
        s = self.settings
        ranges = bounds(s)
        defaults = {"threads": 1, "movetime_ms": s.think_ms, "iterations": s.iterations}
        return {
            "games": ["chess", "knight"],
            "humans": ["white", "black", "none", "both"],
            **{
                name: {"default": defaults[name], "min": lo, "max": hi}
                for name, (lo, hi) in ranges.items()
            },
            "analysis_ms": s.analysis_ms,
            "stats_hz": s.stats_hz,
            "ws_max_frame": s.ws_max_frame,
            "max_searches": s.max_searches,
            "ws_rate": s.ws_rate,
            "ws_burst": s.ws_burst,
            "search_memory_mb": s.search_memory_mb,
            "node_budget": tree_budget(s),
            "idle_search_s": s.idle_search_s,
        }

    # ---------------------------------------------------------------- games
    async def create(self, req: CreateGame) -> LiveGame:
        if self.stopping:
            raise ShuttingDownError("the server is restarting; try again in a moment")
        engine = engine_settings(self.settings, req.game, req)
        session = GameSession(req.game, req.fen, human=req.human, engine=engine)
        await self._make_room()
        gid = secrets.token_hex(6)
        while self.store.get(gid) is not None:  # pragma: no cover - 48 random bits
            gid = secrets.token_hex(6)
        token = secrets.token_urlsafe(24)
        name = req.name or None
        await self.db.run(
            self.db.create,
            gid,
            token_hash(token),
            name,
            session.to_dict(),
            (session.result, session.reason),
        )  # in the database before anyone learns the id
        game = LiveGame(gid, token, session, self, name=name)
        self.store[game.id] = game
        log.info("game %s created (%s, human %s)", gid, req.game, req.human)
        await game.kick()
        return game

    def get(self, gid: str) -> LiveGame:
        """A game in memory (see :meth:`load` for one that may be in the database only)."""
        game = self.store.get(gid)
        if game is None:
            raise GameNotFoundError(f"no game with id {gid!r}")
        return game

    async def load(self, gid: str) -> LiveGame:
        """The game ``gid``, from memory or else from the database (then kept in memory)."""
        game = self.store.get(gid)
        if game is not None:
            return game
        if not gid or len(gid) > 32 or not set(gid) <= _ID_CHARS:
            raise GameNotFoundError(f"no game with id {gid[:40]!r}")
        pending = self._loading.get(gid)
        if pending is not None:  # someone else is loading it: share the result
            return await asyncio.shield(pending)
        future: asyncio.Future[LiveGame] = asyncio.get_running_loop().create_future()
        self._loading[gid] = future
        try:
            game = await self._load(gid)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: no "never retrieved" warning when nobody waits
            raise
        else:
            future.set_result(game)
            return game
        finally:
            del self._loading[gid]

    async def _load(self, gid: str) -> LiveGame:
        if self.stopping:
            raise ShuttingDownError("the server is restarting; try again in a moment")
        stored = await self.db.run(self.db.load, gid)
        if stored is None:
            raise GameNotFoundError(f"no game with id {gid!r}")
        session = GameSession.from_dict(stored.session)
        dropped = sorted(
            set(stored.session["engine"].get("params") or ()) - set(session.engine.params)
        )
        if dropped:  # settings retired since the game was stored
            log.info(
                "game %s: stored parameters no longer known to %s left out: %s",
                gid, session.engine.algorithm, ", ".join(dropped),
            )  # fmt: skip
        await self._make_room()
        game = LiveGame(
            gid,
            None,
            session,
            self,
            digest=stored.token_hash,
            name=stored.name,
            paused=stored.paused,
            rev=stored.rev,
        )
        game.pending_kick = True
        self.store[game.id] = game
        log.info("game %s loaded from the database (%d plies)", gid, session.ply)
        return game

    async def unload(self, game: LiveGame) -> None:
        """Forget a game held in memory (it stays in the database); closes its sockets."""
        if self.store.get(game.id) is game:
            del self.store[game.id]
        await game.close()

    async def _make_room(self) -> None:
        if len(self.store) >= self.settings.max_games:
            await self.evict_idle(force=True)
            if len(self.store) >= self.settings.max_games:
                raise TooManyGamesError(
                    f"the server already has {len(self.store)} games open; try again later"
                )

    def check_token(self, game: LiveGame, token: str | None) -> bool:
        """Whether ``token`` is the game's: hashes compared in constant time."""
        if not token or not isinstance(token, str) or len(token) > 256:
            return False
        return secrets.compare_digest(token_hash(token), game.token_hash)

    async def evict_idle(self, *, force: bool = False) -> int:
        """Unload games nobody watches and nobody touched for ``game_idle_s`` (oldest first).

        They stay in the database and come back on the next :meth:`load`. With
        ``force`` (memory is full) any unwatched idle game may go, oldest first,
        down to 90% of ``max_games``.
        """
        now = time.monotonic()
        idle = sorted(
            (g for g in self.store.values() if not g.connections and g.status == "idle"),
            key=lambda g: g.last_activity,
        )
        target = int(self.settings.max_games * 0.9)
        evicted = 0
        for game in idle:
            old = now - game.last_activity > self.settings.game_idle_s
            if old or (force and len(self.store) > target):
                del self.store[game.id]
                await game.close()
                evicted += 1
        if evicted:
            log.info("unloaded %d idle games (%d in memory)", evicted, len(self.store))
        return evicted

    async def stop_unwatched(self) -> int:
        """Stop searches in games nobody has watched for ``idle_search_s``."""
        now = time.monotonic()
        stopped = 0
        for game in list(self.store.values()):
            since = game.unwatched_since
            if game.status == "idle" or since is None:
                continue
            if now - since >= self.settings.idle_search_s and await game.stop_unwatched():
                stopped += 1
        return stopped

    async def housekeeping(self) -> None:
        """The janitor's round: stop unwatched searches, unload idle games."""
        await self.stop_unwatched()
        await self.evict_idle()

    async def stop_all_searches(self) -> tuple[int, float]:
        """Shutdown: refuse new work and stop every search now, in parallel.

        Deliberately bypasses the games' locks (a request may hold one while it
        waits on the controller): ``SearchController.stop`` is thread-safe and
        returns within milliseconds. Returns (searches stopped, milliseconds).
        """
        self.stopping = True
        t0 = time.perf_counter()
        running = [
            g.controller
            for g in self.store.values()
            if g.controller is not None and g.controller.running
        ]
        await asyncio.gather(*(asyncio.to_thread(c.stop) for c in running), return_exceptions=True)
        return len(running), (time.perf_counter() - t0) * 1000.0

    def health(self) -> dict[str, Any]:
        """Worker pool and memory figures for /api/health (the database is pinged apart)."""
        loaded = list(self.store.values())
        return {
            "pool": self.pool.status(),
            "games_loaded": len(loaded),
            "max_games": self.settings.max_games,
            "connections": sum(len(g.connections) for g in loaded),
            "stopping": self.stopping,
        }

    def release(self, job: Hashable) -> None:
        """Give back ``job``'s slot (or its place in the queue); start whoever it admits."""
        for nxt in self.pool.release(job):
            self.spawn(nxt.admitted(), game_id=nxt.id)

    def spawn(self, coro: Coroutine[Any, Any, None], game_id: str | None = None) -> None:
        """Run ``coro`` in the background, keeping a reference until it is done.

        It outlives whatever request started it, so it logs under ``game_id`` (the game
        it works for; None: server-wide) and no request id (see ``background_context``).
        """
        context = background_context(game_id)
        task = asyncio.get_running_loop().create_task(coro, context=context)
        self._tasks.add(task)
        task.add_done_callback(self._task_done, context=context)

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("background task failed", exc_info=task.exception())

    def _pool_changed(self) -> None:
        """Queued games learn their new place in the queue."""
        seen: dict[str, int | None] = {}
        for job in self.pool.queued_jobs():
            seen[job.id] = pos = self.pool.position(job)
            if self._queue_seen.get(job.id) != pos:
                job.queue_moved()
        self._queue_seen = seen

    async def close(self) -> None:
        self.stopping = True
        for game in list(self.store.values()):
            try:
                await game.close()
            except Exception:  # pragma: no cover - shutting down regardless
                log.exception("closing game %s", game.id)
        await asyncio.to_thread(self.db.close)
