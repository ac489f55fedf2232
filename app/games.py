"""Live games: a session, its search controller, its watchers, and the rules tying them.

:class:`LiveGame` is the only place that decides *when* the engine thinks and
moves; the session (``engine.play``) knows the rules and the controller
(``engine.search``) knows the search. Everything here runs on the event loop:
controller calls that may block (stopping a search takes up to 100 ms) go to
a worker thread while the game's lock keeps requests in order, and the
controller's ``on_info`` callback, which fires in the search thread, only
hands the snapshot over to the loop.

Every request validates first and changes the game only once nothing can
refuse any more, so a refused request leaves the game exactly as it was.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import deque
from collections.abc import Callable, Coroutine, Hashable
from typing import TYPE_CHECKING, Any

from app.bounds import bounds, check_bound, check_threads, validate_params
from app.inside import (
    STEP_LOG,
    inspect,
    log_entry,
    step_positions,
    sync_tree_size,
    tree_size_wanted,
)
from app.logs import background_context
from app.pool import SearchPool
from app.race import RaceRunner
from app.schemas import (
    CreateGame,
    GoFrame,
    MoveFrame,
    NodeFrame,
    PingFrame,
    RaceFrame,
    SearchFrame,
    SettingsFrame,
    SetupFrame,
    SubscribeFrame,
    UndoFrame,
)
from app.settings import Settings
from app.store import ConflictError, SqlStore, StorageError, token_hash
from app.streaming import Outbox, Snapshot, dumps, encode_step
from engine.errors import CanopyError, GameOverError, InvalidParameterError
from engine.play import EngineNote, EngineSettings, GameSession
from engine.search.info import SearchInfo

if TYPE_CHECKING:  # the numba core loads on the first search, not at import
    from engine.search.controller import SearchController

log = logging.getLogger("canopy.app")

#: In a long game's state frame, the last this many moves keep their board FEN.
RECENT_FENS = 16


class GameNotFoundError(CanopyError):
    code = "not_found"


class TooManyGamesError(CanopyError):
    code = "too_many_games"


class ShuttingDownError(CanopyError):
    code = "shutting_down"


#: What a game id can look like (ids are 12 hex digits; anything else is not looked up).
_ID_CHARS = frozenset("0123456789abcdefABCDEF")


def describe_algorithms(game: str) -> list[dict[str, Any]]:
    from engine.search.registry import describe_algorithms as describe

    return describe(game)


class Connection:
    """One websocket: its role and its outbox (the route owns the socket itself)."""

    def __init__(self, role: str, outbox: Outbox) -> None:
        self.role = role
        self.outbox = outbox

    @property
    def is_player(self) -> bool:
        return self.role == "player"


class LiveGame:
    """A game being played or watched, with its engine."""

    def __init__(
        self,
        gid: str,
        token: str | None,
        session: GameSession,
        service: GameService,
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
        # Persistence: what the database holds (the session as last saved), so a save
        # writes only the moves that changed and a failed save can restore the game.
        self._saved = session.to_dict()
        self._saved_paused = paused
        self._saved_rev = rev
        #: Loaded from the database: the engine starts (if it is to move) once someone
        #: watches, not when a page or GET merely reads the game.
        self.pending_kick = False
        # Nobody watching since (monotonic); a search nobody watches stops after
        # ``idle_search_s`` and, if it was the engine's move, resumes when someone returns.
        self.unwatched_since: float | None = time.monotonic()
        self.unwatched_stop = False
        self._state_key: tuple[Any, ...] | None = None
        self._state_part: dict[str, Any] | None = None
        # Inside the search: the race of this game's position, the step traces taken.
        self.race = RaceRunner(self)
        self.step_log: deque[dict[str, Any]] = deque(maxlen=STEP_LOG)

    def __hash__(self) -> int:
        return hash(self.id)

    # ---------------------------------------------------------------- watchers
    def attach(self, conn: Connection) -> None:
        self.connections.add(conn)
        self.last_activity = time.monotonic()
        self.unwatched_since = None
        conn.outbox.put_state(self._encode_state(conn.role))
        if self.latest is not None:
            conn.outbox.put_stats(self.latest)
        if conn.outbox.tree_nodes is None:
            conn.outbox.tree_nodes = self.settings.tree_nodes
        self.race.attach(conn)
        if self.unwatched_stop and not self.closed:
            self.service.spawn(self._resume_watched(), game_id=self.id)
        elif self.pending_kick and not self.closed:
            self.pending_kick = False
            self.service.spawn(self.kick(), game_id=self.id)

    def detach(self, conn: Connection) -> None:
        self.connections.discard(conn)
        self.last_activity = time.monotonic()
        sync_tree_size(self)
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
            await self._cancel()
            self.version += 1
            log.info("game %s: search stopped, nobody watching", self.id)
            return True

    async def _resume_watched(self) -> None:
        """Someone is watching again: the engine's move that was stopped goes on."""
        async with self.lock:
            if self.closed or not self.unwatched_stop:
                return
            self.unwatched_stop = False
            self.paused = False
            await self._after_change()
            self.broadcast_state()

    # ---------------------------------------------------------------- frames out
    def search_status(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "purpose": self.purpose,
            "paused": self.paused,
            "queue_position": self.service.pool.position(self),
        }

    def _status_payload(self) -> dict[str, Any]:
        return {"search": self.search_status(), "pool": self.service.pool.status()}

    def state_payload(self, role: str = "spectator") -> dict[str, Any]:
        return {
            **self._session_part(),
            "version": self.version,
            "role": role,
            "name": self.name,
            "search": self.search_status(),
        }

    def _session_part(self) -> dict[str, Any]:
        """The part of a state frame that only the session decides, cached.

        Under load the search queue moves many times a second and every move of
        it re-sends each queued game's state; recomputing legal moves and FENs
        (python-chess, ~1 ms a game) for frames where only the queue position
        changed kept the event loop busy. Any change of the session changes the
        key (a new session object, ply, start position, last move, who plays,
        or the engine settings, which are replaced, never mutated).
        """
        s = self.session
        last = s.history[-1].fen if s.history else None
        key = (id(s), self.version, s.ply, s.start_fen, last, s.human, id(s.engine))
        if self._state_key == key and self._state_part is not None:
            return self._state_part
        history = []
        for m in s.history:
            entry: dict[str, Any] = {
                "uci": m.uci,
                "san": m.san,
                "color": m.color,
                "by": m.by,
                "fen": m.fen.split(" ", 1)[0],
                "check": m.check,
            }
            if m.note is not None:
                entry["n"] = m.note.visits
                entry["q"] = round(m.note.q, 4)
            history.append(entry)
        part = {
            "type": "state",
            "id": self.id,
            "game": s.game.name,
            "title": s.game.title,
            "fen": s.fen,
            "start_fen": s.start_fen,
            "moves": s.moves,
            "history": history,
            "history_start": 0,  # plies left out of ``history`` (only in very long games)
            "legal": s.legal_moves(),
            "turn": s.turn,
            "check": s.check,
            "ply": s.ply,
            "result": s.result,
            "reason": s.reason,
            "human": s.human,
            "settings": s.engine.to_dict(),
            "last_move": s.history[-1].uci if s.history else None,
        }
        self._state_key, self._state_part = key, part
        return part

    def _encode_state(self, role: str) -> str:
        payload = self.state_payload(role)
        text = dumps(payload)
        limit = self.settings.ws_max_frame - 256
        if len(text.encode()) > limit:  # trimmed below: leave the cached entries whole
            payload["history"] = [dict(entry) for entry in payload["history"]]
        # A very long game. First drop the per-move board FENs, oldest first;
        # then the oldest history entries themselves (``history_start`` says
        # how many; ``moves`` stays complete). Clients browsing that far back
        # ask GET /api/games/{id}/positions, which has no size limit.
        history = payload["history"]
        keep = len(history) - RECENT_FENS  # the latest positions keep their FENs
        index = 0
        while len(text.encode()) > limit and index < keep:
            step = max(1, len(history) // 8)
            for entry in history[index : min(index + step, keep)]:
                entry["fen"] = None
            index += step
            text = dumps(payload)
        while len(text.encode()) > limit and payload["history"]:
            drop = max(1, len(payload["history"]) // 8)
            payload["history"] = payload["history"][drop:]
            payload["history_start"] += drop
            text = dumps(payload)
        return text

    def broadcast_state(self) -> None:
        encoded: dict[str, str] = {}
        for conn in list(self.connections):
            if conn.role not in encoded:
                encoded[conn.role] = self._encode_state(conn.role)
            conn.outbox.put_state(encoded[conn.role])

    def queue_moved(self) -> None:
        """The search queue moved (:class:`app.pool.Waiter`): everyone sees the new place."""
        self.broadcast_state()

    def broadcast_reply(self, payload: dict[str, Any]) -> None:
        text = dumps(payload)
        for conn in list(self.connections):
            conn.outbox.put_reply(text)

    # ---------------------------------------------------------------- snapshots in
    def _on_info_threadsafe(self, info: SearchInfo) -> None:
        """``on_info`` of the controller: runs in the search thread, so only hand over."""
        with contextlib.suppress(RuntimeError):  # a closed loop: the server is shutting down
            self._loop.call_soon_threadsafe(self._on_info, info)

    def _on_info(self, info: SearchInfo) -> None:
        if self.closed or not _same_position(info.fen, self.session.fen):
            return  # a late snapshot of a position we have left
        self.seq += 1
        snap = Snapshot(info, seq=self.seq, root=self.root, status=self._status_payload)
        self.latest = snap
        for conn in list(self.connections):
            conn.outbox.put_stats(snap)
        hook = self.service.on_snapshot
        if hook is not None:
            hook(self, snap)
        if not info.running and info.stop_reason != "stopped" and self.status == "running":
            self.service.spawn(self._finish(), game_id=self.id)

    # ---------------------------------------------------------------- persistence
    async def _persist(self) -> None:
        """Write the session to the database; returns once it is committed (durable).

        Called after every change of the session and before the change is announced,
        so a move the client sees acknowledged survives a crash. If the database
        refuses, the game goes back to what was last saved and ``StorageError`` is
        raised: the request is refused and nothing changed.
        """
        s = self.session
        data = s.to_dict()
        keep = 0
        if data["start_fen"] == self._saved["start_fen"]:
            for old, new in zip(self._saved["history"], data["history"], strict=False):
                if old["uci"] != new["uci"]:
                    break
                keep += 1
        db = self.service.db
        try:
            self._saved_rev = await db.run(
                db.save, self.id, data, keep, (s.result, s.reason), self.paused, self._saved_rev
            )
        except ConflictError:
            # Another server saved this game since we loaded it: our copy is stale.
            # Drop it; the next request loads the stored game afresh.
            await self._rollback()
            self.service.spawn(self.service.unload(self), game_id=self.id)
            raise
        except StorageError:
            await self._rollback()
            raise
        self._saved = data
        self._saved_paused = self.paused

    async def _rollback(self) -> None:
        """Back to the last saved session (a save failed), controller included."""
        self.session = GameSession.from_dict(self._saved)
        self.paused = self._saved_paused
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
            await self._controller_reset()
        self._position_changed()
        self.broadcast_state()

    # ---------------------------------------------------------------- search lifecycle
    async def _ensure_controller(self) -> SearchController:
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
                node_budget=self.service.tree_budget,
                tree_size=tree_size_wanted(self),
                on_info=self._on_info_threadsafe,
                info_interval=1.0 / self.settings.stats_hz,
                nice=self.settings.search_nice,
            )
            sync_tree_size(self)
        return self.controller

    async def _request(self, purpose: str) -> None:
        """Ask the pool for a search slot: start now, or wait in the queue."""
        if self.session.is_over or self.status == "running" or self.service.stopping:
            return
        self.purpose = purpose
        if self.status == "queued":
            return
        await self._ensure_controller()
        if self.service.pool.request(self):
            await self._start_now()
        else:
            self.status = "queued"

    def _limits(self) -> dict[str, int]:
        if self.purpose == "analysis":
            return {"movetime_ms": self.settings.analysis_ms}
        return self.session.engine.limits()

    async def _start_now(self) -> None:
        assert self.controller is not None
        self.status = "running"
        try:
            await asyncio.to_thread(self.controller.start, **self._limits())
        except Exception:
            self._set_idle()
            raise

    async def admitted(self) -> None:
        """The pool let this queued game run (another game's search ended)."""
        async with self.lock:
            if self.closed or self.status != "queued" or not self.service.pool.is_running(self):
                return
            try:
                await self._start_now()
            except Exception:
                log.exception("game %s: starting a queued search failed", self.id)
            self.broadcast_state()

    def _set_idle(self) -> None:
        self.status = "idle"
        self.purpose = None
        self.service.release(self)

    async def _cancel(self) -> None:
        """Stop the running search (keeping its tree) or leave the queue."""
        was_running = self.status == "running"
        self._set_idle()
        if was_running and self.controller is not None:
            await asyncio.to_thread(self.controller.stop)

    async def _finish(self) -> None:
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
            self._set_idle()
            if purpose == "move" and not info.bestmove and not self.session.is_over:
                # A budget too small for a single finished iteration: do one, then move.
                await asyncio.to_thread(ctl.step)
                info = await asyncio.to_thread(ctl.info)
            if (
                purpose == "move"
                and info.bestmove
                and _same_position(info.fen, self.session.fen)
                and not self.session.is_over
            ):
                await self._play_engine(info)
            else:
                self.version += 1
                self.broadcast_state()

    async def _play_engine(self, info: SearchInfo) -> None:
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
        self.session.play(uci, by="engine", note=note)
        try:
            await self._persist()
        except StorageError as exc:  # the move is not played; wait for the user
            self.paused = True
            self.broadcast_reply({"type": "error", "code": exc.code, "message": str(exc)})
            return
        self._position_changed()
        self.broadcast_state()  # at once: the move is what the watchers wait for
        await self._controller_play(uci)
        await self._after_change()

    async def _controller_play(self, uci: str) -> None:
        """Advance the controller's root, reusing the subtree of the move played."""
        if self.controller is None:
            return
        try:
            await asyncio.to_thread(self.controller.play, uci)
        except CanopyError:  # out of step somehow: resynchronise from the session
            log.warning("game %s: controller refused %s; resetting its position", self.id, uci)
            await self._controller_reset()

    async def _controller_reset(self) -> None:
        if self.controller is not None:
            await asyncio.to_thread(
                self.controller.set_position, self.session.start_fen, self.session.moves
            )

    def _position_changed(self) -> None:
        self.version += 1
        self.root = self.session.board
        self.latest = None
        self.last_activity = time.monotonic()
        for conn in list(self.connections):
            conn.outbox.drop_stats()

    async def _after_change(self) -> None:
        """Start the engine's search if it is to move (and not paused); announce it."""
        before = self.status
        if self.session.engine_to_move and not self.paused:
            await self._request("move")
        if self.status != before:
            self.version += 1
            self.broadcast_state()

    async def kick(self) -> None:
        """Get a newly created game going (the engine may have the first move)."""
        async with self.lock:
            await self._after_change()

    # ---------------------------------------------------------------- requests
    async def handle(self, conn: Connection, frame: Any) -> None:
        """Carry out one validated client frame (raises a ``CanopyError`` to refuse)."""
        self.last_activity = time.monotonic()
        if isinstance(frame, PingFrame):
            conn.outbox.put_reply(dumps({"type": "pong", "t": frame.t}))
            return
        if isinstance(frame, SubscribeFrame):
            if frame.tree is not None:
                conn.outbox.tree = frame.tree
            if frame.hz is not None:
                conn.outbox.hz = min(frame.hz, self.settings.stats_hz)
            if frame.tree_nodes is not None:
                conn.outbox.tree_nodes = frame.tree_nodes
            if frame.tree_format is not None:
                conn.outbox.tree_compact = frame.tree_format == "compact"
            sync_tree_size(self)
            return
        if isinstance(frame, NodeFrame):
            await inspect(self, conn, frame.id)
            return
        async with self.lock:
            if self.closed:
                raise GameNotFoundError(f"game {self.id} has been closed")
            if self.service.stopping:
                raise ShuttingDownError("the server is restarting; try again in a moment")
            paused = self.paused
            if isinstance(frame, RaceFrame):
                await self.race.handle(frame)
            elif isinstance(frame, MoveFrame):
                await self.move(frame.uci)
            elif isinstance(frame, SearchFrame):
                await self.search(frame.action)
            elif isinstance(frame, SettingsFrame):
                await self.change_settings(frame)
            elif isinstance(frame, UndoFrame):
                await self.undo()
            elif isinstance(frame, SetupFrame):
                await self.setup(frame.fen)
            elif isinstance(frame, GoFrame):
                await self.go()
            else:  # pragma: no cover - the union is exhaustive
                raise CanopyError(f"unhandled frame {frame!r}")
            if self.paused != paused and self.paused != self._saved_paused:
                with contextlib.suppress(StorageError):  # only a flag; the next save has it
                    await self._persist()

    async def _end_race(self) -> None:
        """A request was accepted: a race is about the position it started from, so any
        accepted change, or a search of the game's own, ends it. Called once a request has
        passed its checks, so a refused one (an illegal move, a typo in a parameter) leaves a
        running race alone."""
        if self.race.running:
            await self.race.stop()

    async def move(self, uci: str) -> None:
        self.session.play(uci, by="human")  # refuses without changing anything
        await self._persist()  # durable before it is acknowledged
        await self._end_race()
        self.unwatched_stop = False
        await self._cancel()
        self._position_changed()
        self.broadcast_state()
        await self._controller_play(self.session.moves[-1])
        await self._after_change()

    async def search(self, action: str) -> None:
        if action == "start":
            if self.session.is_over:
                raise GameOverError(f"the game is over ({self.session.result})")
            await self._end_race()
            was_paused = self.paused
            if self.session.engine_to_move:
                self.paused = False
                await self._request("move")
            else:
                await self._request("analysis")
            if was_paused != self.paused:
                self.version += 1
        elif action == "stop":
            await self._end_race()
            if (self.status != "idle" and self.purpose == "move") or self.session.engine_to_move:
                self.paused = True
            await self._cancel()
            self.version += 1
        else:
            await self.step()
        self.broadcast_state()

    async def step(self) -> None:
        """Exactly one iteration (pauses the engine; stops a running search first)."""
        if self.session.is_over:
            raise GameOverError(f"the game is over ({self.session.result})")
        await self._end_race()
        if self.session.engine_to_move:
            self.paused = True
        await self._cancel()
        ctl = await self._ensure_controller()
        trace = await asyncio.to_thread(ctl.step)
        info = await asyncio.to_thread(ctl.info)
        payload = trace.to_dict() if hasattr(trace, "to_dict") else dict(trace)
        payload.update(step_positions(info.fen, payload, self.session.board))
        self.step_log.append(log_entry(payload))
        text = encode_step(payload, self.settings.ws_max_frame)
        for conn in list(self.connections):
            conn.outbox.put_reply(text)
        self._on_info(info)
        self.version += 1

    async def go(self) -> None:
        """Engine, move now: the best move so far, or think with the budget and then move."""
        if self.session.is_over:
            raise GameOverError(f"the game is over ({self.session.result})")
        await self._end_race()
        self.paused = False
        if self.status == "queued":
            self.purpose = "move"
            self.version += 1
            self.broadcast_state()
            return
        if self.status == "running":
            await self._cancel()
        if self.controller is not None:
            info = await asyncio.to_thread(self.controller.info)
            if info.bestmove and info.iterations > 0 and _same_position(info.fen, self.session.fen):
                await self._play_engine(info)
                return
        await self._request("move")
        self.version += 1
        self.broadcast_state()

    async def undo(self) -> None:
        self.session.undo()  # refuses without changing anything
        await self._persist()
        await self._end_race()
        await self._cancel()
        if self.session.human == "none":
            self.paused = True  # taking back an engine game: let the user look first
        await self._controller_reset()
        self._position_changed()
        self.broadcast_state()
        await self._after_change()

    async def setup(self, fen: str | None) -> None:
        self.session.setup(fen)  # InvalidFenError leaves the game as it was
        await self._persist()
        await self._end_race()
        await self._cancel()
        if self.controller is not None:
            await asyncio.to_thread(self.controller.set_position, self.session.start_fen, ())
        self._position_changed()
        self.broadcast_state()
        await self._after_change()

    async def change_settings(self, frame: SettingsFrame) -> None:
        new = self.service.engine_settings(self.session.game.name, frame, base=self.session.engine)
        human = frame.human or self.session.human
        old = self.session.engine
        await self._end_race()
        engine_changed = any(
            getattr(new, k) != getattr(old, k) for k in ("algorithm", "params", "threads", "seed")
        )
        resume = self.purpose if self.status != "idle" else None
        await self._cancel()
        if engine_changed and self.controller is not None:
            try:
                await asyncio.to_thread(
                    self.controller.configure,
                    algorithm=new.algorithm,
                    params=dict(new.params),
                    threads=new.threads,
                    seed=new.seed,
                )
            except CanopyError:
                if resume:
                    await self._request(resume)
                raise
            self.latest = None
            for conn in list(self.connections):
                conn.outbox.drop_stats()
        self.session.engine = new
        self.session.set_human(human)
        await self._persist()
        self.version += 1
        if resume == "analysis" and not self.session.engine_to_move:
            await self._request("analysis")
        self.broadcast_state()
        await self._after_change()

    # ---------------------------------------------------------------- teardown
    async def stop_for_race(self) -> None:
        """A race is starting: stop this game's own search (pausing the engine on its move)."""
        if self.session.engine_to_move:
            self.paused = True
        await self._cancel()
        self.version += 1
        self.broadcast_state()

    async def close(self) -> None:
        async with self.lock:
            self.closed = True
            await self.race.close()
            await self._cancel()
            if self.controller is not None:
                await asyncio.to_thread(self.controller.close)
                self.controller = None
            for conn in list(self.connections):
                conn.outbox.close()


def _same_position(a: str, b: str) -> bool:
    """Same placement and side to move (tolerates differing clocks/ep notation)."""
    return a.split(" ", 2)[:2] == b.split(" ", 2)[:2]


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
    @property
    def tree_budget(self) -> int:
        """Tree nodes per search thread: ``node_budget``, less if ``search_memory_mb`` says so.

        A tree holds at most its budget of nodes (it grows by doubling, capped at the
        budget), so ``threads × budget × bytes per node`` bounds a search's memory; the
        budget is sized for the largest thread count a client may ask for.
        """
        from engine.search.tree import BYTES_PER_NODE

        s = self.settings
        by_memory = s.search_memory_mb * 1024 * 1024 // (s.max_threads * BYTES_PER_NODE)
        return max(1_000, min(s.node_budget, by_memory))

    def engine_settings(
        self, game: str, fields: Any, *, base: EngineSettings | None = None
    ) -> EngineSettings:
        """Validated engine settings from request fields over ``base`` (or the defaults)."""
        s = self.settings
        base = base or EngineSettings(movetime_ms=s.think_ms, iterations=s.iterations)
        algorithm = fields.algorithm or base.algorithm
        if fields.params is not None:
            params = (
                {**base.params, **fields.params}
                if algorithm == base.algorithm
                else dict(fields.params)
            )
        else:
            params = dict(base.params) if algorithm == base.algorithm else {}
        params = validate_params(algorithm, params, game)
        threads = fields.threads if fields.threads is not None else base.threads
        movetime = fields.movetime_ms if fields.movetime_ms is not None else base.movetime_ms
        iterations = fields.iterations if fields.iterations is not None else base.iterations
        check_threads(s, algorithm, threads)
        check_bound(s, "movetime_ms", movetime)
        check_bound(s, "iterations", iterations)
        hash_mb = params.get("hash_mb")
        if isinstance(hash_mb, int | float) and hash_mb * threads > s.search_memory_mb:
            raise InvalidParameterError(
                f"hash_mb × threads must stay within the server's {s.search_memory_mb} MB "
                f"per search, not {hash_mb} × {threads}"
            )
        return EngineSettings(
            algorithm=algorithm,
            params=params,
            threads=threads,
            budget=fields.budget or base.budget,
            movetime_ms=movetime,
            iterations=iterations,
            seed=fields.seed if fields.seed is not None else base.seed,
        )

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
            "node_budget": self.tree_budget,
            "idle_search_s": s.idle_search_s,
        }

    # ---------------------------------------------------------------- games
    async def create(self, req: CreateGame) -> LiveGame:
        if self.stopping:
            raise ShuttingDownError("the server is restarting; try again in a moment")
        engine = self.engine_settings(req.game, req)
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
