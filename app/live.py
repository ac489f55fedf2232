"""A live game: a session, its search controller, its watchers, and when the engine thinks.

:class:`LiveGame` is the only place that decides *when* the engine thinks and
moves; the session (``engine.play``) knows the rules and the controller
(``engine.search``) knows the search. Everything here runs on the event loop:
controller calls that may block (stopping a search takes up to 100 ms) go to
a worker thread while the game's lock keeps requests in order, and the
controller's ``on_info`` callback, which fires in the search thread, only
hands the snapshot over to the loop.

What a client asks of a game is carried out by ``app.handlers`` with the
steps below; the service that holds the games (``app.service``) is seen only
through :class:`Host`, so this module never imports it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Coroutine, Hashable
from typing import TYPE_CHECKING, Any, Protocol

from app.bounds import tree_budget
from app.broadcast import SessionPart, encode_state, send_reply, send_state
from app.connection import Connection
from app.inside import STEP_LOG
from app.persistence import SavedGame
from app.pool import SearchPool
from app.quiz import Quiz
from app.race import RaceRunner
from app.settings import Settings
from app.store import ConflictError, SqlStore, StorageError, token_hash
from app.streaming import Snapshot, dumps
from app.subscriptions import sync_tree_size, tree_size_wanted
from engine.errors import CanopyError
from engine.explain.summary import SearchSummary, summarize
from engine.play import EngineNote, GameSession
from engine.search.info import SearchInfo

if TYPE_CHECKING:  # the numba core loads on the first search, not at import
    from collections.abc import Callable

    from engine.search.controller import SearchController

log = logging.getLogger("canopy.app")


class Host(Protocol):
    """What a live game needs of the service holding it (``app.service.GameService``)."""

    settings: Settings
    pool: SearchPool
    db: SqlStore
    #: True once shutdown began: no search starts, no request changes a game.
    stopping: bool
    #: Called with (game, snapshot) for every snapshot (the streaming benchmark uses it).
    on_snapshot: Callable[[LiveGame, Snapshot], None] | None

    def spawn(self, coro: Coroutine[Any, Any, None], game_id: str | None = None) -> None: ...
    def release(self, job: Hashable) -> None: ...
    async def unload(self, game: LiveGame) -> None: ...


def same_position(a: str, b: str) -> bool:
    """Same placement and side to move (tolerates differing clocks/ep notation)."""
    return a.split(" ", 2)[:2] == b.split(" ", 2)[:2]


class LiveGame:
    """A game being played or watched, with its engine."""

    def __init__(
        self,
        gid: str,
        token: str | None,
        session: GameSession,
        service: Host,
        *,
        digest: str | None = None,
        name: str | None = None,
        paused: bool = False,
        rev: int = 0,
    ) -> None:
        self.id = gid
        #: The creator's token: only kept by the process that created the game (to answer
        #: POST /api/games); everything else compares :attr:`token_hash` in constant time.
        self.token = token
        self.token_hash = digest or token_hash(token or "")
        self.name = name
        self.session = session
        self.service = service
        self.settings = service.settings
        self.controller: SearchController | None = None
        self.connections: set[Connection] = set()
        self.lock = asyncio.Lock()
        self.version = 0
        self.status = "idle"  # idle | queued | running
        self.purpose: str | None = None  # move | analysis
        self.paused = paused
        self.seq = 0
        self.latest: Snapshot | None = None
        self.root = session.board
        self.last_activity = time.monotonic()
        self.closed = False
        self._loop = asyncio.get_running_loop()
        #: What the database holds (the session as last saved): a save writes only the
        #: moves that changed and a failed save can restore the game.
        self.saved = SavedGame(gid, service.db, session, paused, rev)
        #: Loaded from the database: the engine starts (if it is to move) once someone
        #: watches, not when a page or GET merely reads the game.
        self.pending_kick = False
        # Nobody watching since (monotonic); a search nobody watches stops after
        # ``idle_search_s`` and, if it was the engine's move, resumes when someone returns.
        self.unwatched_since: float | None = time.monotonic()
        self.unwatched_stop = False
        self._session_part = SessionPart()
        # Inside the search: the race of this game's position, the step traces taken.
        self.race = RaceRunner(service.settings, service.pool, service.release, self.connections)
        self.step_log: deque[dict[str, Any]] = deque(maxlen=STEP_LOG)
        #: The class quiz's question about this game (in memory only, never saved).
        self.quiz = Quiz(self.broadcast_reply)

    def __hash__(self) -> int:
        return hash(self.id)

    # ---------------------------------------------------------------- watchers
    def attach(self, conn: Connection) -> None:
        self.connections.add(conn)
        self.last_activity = time.monotonic()
        self.unwatched_since = None
        conn.outbox.put_state(self.state_text(conn.role))
        if self.latest is not None:
            conn.outbox.put_stats(self.latest)
        if conn.outbox.tree_nodes is None:
            conn.outbox.tree_nodes = self.settings.tree_nodes
        self.race.attach(conn)
        quiz = self.quiz.frame()
        if quiz is not None:  # a projector opened mid-question sees it (and its tally)
            conn.outbox.put_reply(dumps(quiz))
        if self.unwatched_stop and not self.closed:
            self.service.spawn(self.resume_watched(), game_id=self.id)
        elif self.pending_kick and not self.closed:
            self.pending_kick = False
            self.service.spawn(self.kick(), game_id=self.id)

    def detach(self, conn: Connection) -> None:
        self.connections.discard(conn)
        self.last_activity = time.monotonic()
        sync_tree_size(self.settings, self.connections, self.controller)
        if not self.connections:
            self.unwatched_since = self.last_activity

    async def stop_unwatched(self) -> bool:
        """Nobody has watched for ``idle_search_s``: stop the search (True if one stopped)."""
        async with self.lock:
            if self.closed or self.connections or self.status == "idle":
                return False
            if self.purpose == "move":
                self.paused = True
                self.unwatched_stop = True
            await self.cancel()
            self.version += 1
            log.info("game %s: search stopped, nobody watching", self.id)
            return True

    async def resume_watched(self) -> None:
        """Someone is watching again: the engine's move that was stopped goes on."""
        async with self.lock:
            if self.closed or not self.unwatched_stop:
                return
            self.unwatched_stop = False
            self.paused = False
            await self.after_change()
            self.broadcast_state()

    # ---------------------------------------------------------------- frames out
    def search_status(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "purpose": self.purpose,
            # A game its players move (an arena's) is kept paused so that this game's own
            # engine never moves it; it is being played, not paused (the frame's played_by).
            "paused": self.paused and not self.session.played_by,
            "queue_position": self.service.pool.position(self),
        }

    def status_payload(self) -> dict[str, Any]:
        return {"search": self.search_status(), "pool": self.service.pool.status()}

    def state_payload(self, role: str = "spectator") -> dict[str, Any]:
        return {
            **self._session_part.get(self.id, self.session, self.version),
            "version": self.version,
            "role": role,
            "name": self.name,
            "search": self.search_status(),
        }

    def state_text(self, role: str) -> str:
        return encode_state(self.state_payload(role), self.settings.ws_max_frame)

    def broadcast_state(self) -> None:
        send_state(self.connections, self.state_text)

    def queue_moved(self) -> None:
        """The search queue moved (:class:`app.pool.Waiter`): everyone sees the new place."""
        self.broadcast_state()

    def broadcast_reply(self, payload: dict[str, Any]) -> None:
        send_reply(self.connections, payload)

    # ---------------------------------------------------------------- snapshots in
    def on_info_threadsafe(self, info: SearchInfo) -> None:
        """``on_info`` of the controller: runs in the search thread, so only hand over."""
        with contextlib.suppress(RuntimeError):  # a closed loop: the server is shutting down
            self._loop.call_soon_threadsafe(self.on_info, info)

    def on_info(self, info: SearchInfo) -> None:
        if self.closed or not same_position(info.fen, self.session.fen):
            return  # a late snapshot of a position we have left
        self.seq += 1
        snap = Snapshot(info, seq=self.seq, root=self.root, status=self.status_payload)
        self.latest = snap
        for conn in list(self.connections):
            conn.outbox.put_stats(snap)
        hook = self.service.on_snapshot
        if hook is not None:
            hook(self, snap)
        if not info.running and info.stop_reason != "stopped" and self.status == "running":
            self.service.spawn(self.finish(), game_id=self.id)

    def kept_search(self, played: str) -> SearchSummary | None:
        """The search of the current position to keep with a human move: the latest
        snapshot of the one running (or last run) here, if it did any work."""
        snap = self.latest
        if snap is None or not same_position(snap.info.fen, self.session.fen):
            return None
        if snap.info.iterations <= 0 or not snap.info.moves:
            return None
        return summarize(snap.info, played=played)

    # ---------------------------------------------------------------- persistence
    async def persist(self) -> None:
        """Write the session to the database; returns once it is committed (durable).

        Called after every change of the session and before the change is announced,
        so a move the client sees acknowledged survives a crash. If the database
        refuses, the game goes back to what was last saved and ``StorageError`` is
        raised: the request is refused and nothing changed.
        """
        try:
            await self.saved.save(self.session, self.paused)
        except ConflictError:
            # Another server saved this game since we loaded it: our copy is stale.
            # Drop it; the next request loads the stored game afresh.
            await self.rollback()
            self.service.spawn(self.service.unload(self), game_id=self.id)
            raise
        except StorageError:
            await self.rollback()
            raise

    async def rollback(self) -> None:
        """Back to the last saved session (a save failed), controller included."""
        self.session = self.saved.restore()
        self.paused = self.saved.paused
        if self.controller is not None:
            e = self.session.engine
            with contextlib.suppress(CanopyError):
                await asyncio.to_thread(
                    self.controller.configure,
                    algorithm=e.algorithm,
                    params=dict(e.params),
                    threads=e.threads,
                    seed=e.seed,
                )
            await self.controller_reset()
        self.position_changed()
        self.broadcast_state()

    # ---------------------------------------------------------------- search lifecycle
    async def ensure_controller(self) -> SearchController:
        if self.controller is None:
            s = self.session
            e = s.engine
            from engine.search.controller import SearchController

            self.controller = await asyncio.to_thread(
                SearchController,
                game=s.game.name,
                fen=s.start_fen,
                moves=s.moves,
                algorithm=e.algorithm,
                params=dict(e.params),
                threads=e.threads,
                seed=e.seed,
                node_budget=tree_budget(self.settings),
                tree_size=tree_size_wanted(self.settings, self.connections),
                on_info=self.on_info_threadsafe,
                info_interval=1.0 / self.settings.stats_hz,
                nice=self.settings.search_nice,
            )
            sync_tree_size(self.settings, self.connections, self.controller)
        return self.controller

    async def request(self, purpose: str) -> None:
        """Ask the pool for a search slot: start now, or wait in the queue."""
        if self.session.is_over or self.status == "running" or self.service.stopping:
            return
        self.purpose = purpose
        if self.status == "queued":
            return
        await self.ensure_controller()
        if self.service.pool.request(self):
            await self.start_now()
        else:
            self.status = "queued"

    def limits(self) -> dict[str, int]:
        if self.purpose == "analysis":
            return {"movetime_ms": self.settings.analysis_ms}
        return self.session.engine.limits()

    async def start_now(self) -> None:
        assert self.controller is not None
        self.status = "running"
        # The tree grows from here on: which child the next step picks is no longer asked.
        self.quiz.withdraw("a search ran, so the tree changed", kinds=("selection",))
        try:
            await asyncio.to_thread(self.controller.start, **self.limits())
        except Exception:
            self.set_idle()
            raise

    async def admitted(self) -> None:
        """The pool let this queued game run (another game's search ended)."""
        async with self.lock:
            if self.closed or self.status != "queued" or not self.service.pool.is_running(self):
                return
            try:
                await self.start_now()
            except Exception:
                log.exception("game %s: starting a queued search failed", self.id)
            self.broadcast_state()

    def set_idle(self) -> None:
        self.status = "idle"
        self.purpose = None
        self.service.release(self)

    async def cancel(self) -> None:
        """Stop the running search (keeping its tree) or leave the queue."""
        was_running = self.status == "running"
        self.set_idle()
        if was_running and self.controller is not None:
            await asyncio.to_thread(self.controller.stop)

    async def finish(self) -> None:
        """The search stopped by itself (its budget was spent): play or go idle."""
        async with self.lock:
            ctl = self.controller
            if self.closed or self.status != "running" or ctl is None:
                return
            if ctl.running:  # the final snapshot may race the thread's last breath
                await asyncio.to_thread(ctl.wait, 0.5)
                if ctl.running:
                    return  # that snapshot was an older search's; this one goes on
            info = await asyncio.to_thread(ctl.info)
            purpose = self.purpose
            self.set_idle()
            if purpose == "move" and not info.bestmove and not self.session.is_over:
                # A budget too small for a single finished iteration: do one, then move.
                await asyncio.to_thread(ctl.step)
                info = await asyncio.to_thread(ctl.info)
            if (
                purpose == "move"
                and info.bestmove
                and same_position(info.fen, self.session.fen)
                and not self.session.is_over
            ):
                if self.quiz.is_open("bestmove"):
                    # The room is still voting on this move: the engine waits, paused,
                    # until the player reveals it ("go", Move now).
                    self.paused = True
                    self.version += 1
                    self.broadcast_state()
                    return
                await self.play_engine(info)
            else:
                self.version += 1
                self.broadcast_state()

    async def play_engine(self, info: SearchInfo) -> None:
        uci = info.bestmove
        assert uci is not None
        row = next((m for m in info.moves if m.move == uci), None)
        note = EngineNote(
            visits=int(row.visits) if row else 0,
            q=float(row.q) if row else 0.5,
            iterations=int(info.iterations),
            elapsed_ms=float(info.elapsed_ms),
            algorithm=info.algorithm,
            nodes=int(info.nodes),
            depth=int(info.depth),
        )
        self.session.play(uci, by="engine", note=note, search=summarize(info, played=uci))
        try:
            await self.persist()
        except StorageError as exc:  # the move is not played; wait for the user
            self.paused = True
            self.broadcast_reply({"type": "error", "code": exc.code, "message": str(exc)})
            return
        self.quiz.reveal("bestmove", uci)  # the room sees the answer with the move
        self.position_changed()
        self.broadcast_state()  # at once: the move is what the watchers wait for
        await self.controller_play(uci)
        await self.after_change()

    async def controller_play(self, uci: str) -> None:
        """Advance the controller's root, reusing the subtree of the move played."""
        if self.controller is None:
            return
        try:
            await asyncio.to_thread(self.controller.play, uci)
        except CanopyError:  # out of step somehow: resynchronise from the session
            log.warning("game %s: controller refused %s; resetting its position", self.id, uci)
            await self.controller_reset()

    async def controller_reset(self) -> None:
        if self.controller is not None:
            await asyncio.to_thread(
                self.controller.set_position, self.session.start_fen, self.session.moves
            )

    def position_changed(self) -> None:
        self.version += 1
        self.root = self.session.board
        self.latest = None
        self.last_activity = time.monotonic()
        self.quiz.withdraw("the position changed")
        for conn in list(self.connections):
            conn.outbox.drop_stats()

    async def after_change(self) -> None:
        """Start the engine's search if it is to move (and not paused); announce it."""
        before = self.status
        if self.session.engine_to_move and not self.paused and not self.session.played_by:
            await self.request("move")
        if self.status != before:
            self.version += 1
            self.broadcast_state()

    async def kick(self) -> None:
        """Get a newly created game going (the engine may have the first move)."""
        async with self.lock:
            await self.after_change()

    # ---------------------------------------------------------------- teardown
    async def stop_for_race(self) -> None:
        """A race is starting: stop this game's own search (pausing the engine on its move)."""
        if self.session.engine_to_move:
            self.paused = True
        await self.cancel()
        self.version += 1
        self.broadcast_state()

    async def close(self) -> None:
        async with self.lock:
            self.closed = True
            await self.race.close()
            await self.cancel()
            if self.controller is not None:
                await asyncio.to_thread(self.controller.close)
                self.controller = None
            for conn in list(self.connections):
                conn.outbox.close()
