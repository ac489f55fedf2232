"""The arena's tournament runner: plays the pending games of running arenas.

Each game is ``engine.arena.play.play_game`` in a worker thread, holding one
slot of the server's search pool for the whole game. A game takes a slot only
while at least one more stays free and nobody waits in the queue (on a pool of
one slot it takes the only one), and at most ``arena_games_at_once`` play at
once, so a human's game never waits behind the arena.

Every game is an ordinary stored game (human ``none``, its two bots its
named players, ``played_by`` the arena: the live game never starts its own
engine on it): stored when it starts, each move written with its search as
it is played, so ``/games/{id}/watch`` shows it live (the bots' snapshots go
to the game's watchers) and the review and PGN work afterwards. A game the
move limit ends is stored adjudicated, with the arena's result and reason.
With ``CANOPY_DASK_SCHEDULER`` the games are played by
``engine.arena.cluster.play_on_cluster`` instead and each is stored whole
as it arrives.

A stop (shutdown, the teacher ending the arena, a bot removed) stops the
game being played; its stored game is discarded and its pairing waits again,
so after a restart it is replayed from its start while finished games stay.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import chess

from app.arena_store import ArenaRecord, GameRecord
from app.arenas import ArenaService, bot_of, results_of, rules_of
from app.bounds import tree_budget
from app.store import token_hash
from engine.arena.pairing import swiss_round
from engine.arena.play import ArenaGame, ArenaMove, opening_count, opening_moves, play_game
from engine.arena.rules import ArenaRules, Bot
from engine.explain.summary import SearchSummary
from engine.play import EngineNote, EngineSettings, GameSession, Player

if TYPE_CHECKING:
    from engine.search.controller import SearchController
    from engine.search.info import SearchInfo

log = logging.getLogger("canopy.arena")

#: How often a running arena looks for a free slot when nothing told it (seconds).
POLL_S = 0.5


def game_seed(record: ArenaRecord, game: GameRecord) -> int:
    """Each game's seed: the arena's plus the game's place (an iterations budget replays)."""
    return (record.seed + game.seq) % 2**31


def engine_of(rules: ArenaRules, bot: Bot) -> EngineSettings:
    """A bot's search as a game's engine settings (what the stored game records)."""
    if rules.iterations is not None:
        return EngineSettings(
            algorithm=bot.algorithm, params=bot.params, budget="iterations",
            iterations=rules.iterations,
        )  # fmt: skip
    return EngineSettings(
        algorithm=bot.algorithm, params=bot.params, movetime_ms=rules.movetime_ms or 1000
    )


def player_of(rules: ArenaRules, bot: Bot) -> Player:
    """A bot as the named player of one side of its stored game."""
    return Player(bot.name, engine_of(rules, bot), label=bot.engine(rules.game), id=bot.id)


def game_name(arena: str, white: str, black: str) -> str:
    prefix = arena if "arena" in arena.lower() else f"Arena {arena}"
    return f"{prefix} · {white} vs {black}"[:80]


def note_of(search: SearchSummary, uci: str) -> EngineNote:
    row = search.move(uci)
    return EngineNote(
        visits=int(row.visits) if row else 0,
        q=float(row.q) if row else 0.5,
        iterations=search.iterations,
        elapsed_ms=search.ms,
        algorithm=search.algorithm,
        nodes=search.nodes,
        depth=search.depth,
    )


def play_move(session: GameSession, move: ArenaMove) -> None:
    search = SearchSummary.from_dict(move.search) if move.search else None
    note = note_of(search, move.uci) if search is not None else None
    session.play(move.uci, by="engine", note=note, search=search)


def conclude(session: GameSession, game: ArenaGame) -> None:
    """The arena's result on the session: a game the rules did not end (the move
    limit) is adjudicated, so the stored game says what the crosstable says."""
    if not session.is_over:
        session.adjudicate(game.result, game.reason)


class GameRun:
    """One arena game played here: a job of the search pool, its session as stored."""

    def __init__(self, aid: str, game: GameRecord) -> None:
        self.aid = aid
        self.id = game.game_id
        self.record = game
        self.stop = threading.Event()
        self.task: asyncio.Task[None] | None = None
        self.session: GameSession | None = None
        self.rev = 0
        self.saved_ply = 0
        self.save_lock = asyncio.Lock()

    def __hash__(self) -> int:
        return hash(("arena", self.id))

    def involves(self, bot_id: str | None) -> bool:
        return bot_id is None or bot_id in (self.record.white, self.record.black)

    async def admitted(self) -> None:
        """Never queued: the runner only takes a free slot (``SearchPool.acquire``)."""

    def queue_moved(self) -> None:
        """Never queued."""


class ArenaRunner:
    """Schedules and plays the games of every running arena on this server."""

    def __init__(self, arenas: ArenaService) -> None:
        self.arenas = arenas
        self.games = arenas.games
        self.settings = arenas.settings
        self.db = arenas.db
        self.store = arenas.store
        self.runs: dict[str, GameRun] = {}
        self.drivers: dict[str, asyncio.Task[None]] = {}
        #: Per arena playing on the Dask cluster: set to stop its games there.
        self.cluster_stops: dict[str, threading.Event] = {}
        self.cluster_done: dict[str, asyncio.Event] = {}
        self.wake = asyncio.Event()
        self.stopping = False
        arenas.on_start = self.start
        arenas.on_stop = self.stop

    # ---------------------------------------------------------------- control
    async def resume(self) -> int:
        """At startup: the games a stop interrupted are discarded (replayed from their start)
        and every running arena goes on. Returns how many arenas resumed."""
        for state in ("running", "paused"):
            for aid in await self.db.run(self.store.with_state, state):
                dropped = await self.db.run(self.store.discard_playing, aid)
                if dropped:
                    log.info("arena %s: %d interrupted games replay", aid, len(dropped))
        running = await self.db.run(self.store.with_state, "running")
        for aid in running:
            await self.start(aid)
            log.info("arena %s resumed", aid)
        return len(running)

    async def start(self, aid: str) -> None:
        if self.stopping:
            return
        driver = self.drivers.get(aid)
        if driver is None or driver.done():
            self.drivers[aid] = asyncio.get_running_loop().create_task(self._drive(aid))
        self.wake.set()

    async def stop(self, aid: str, bot_id: str | None) -> None:
        """Stop the games of ``aid`` being played (of ``bot_id`` only, if given): each is
        discarded and waits again."""
        if aid in self.cluster_stops:  # the cluster's games are one batch: all stop
            self.cluster_stops[aid].set()
            await self.cluster_done[aid].wait()
        runs = [r for r in self.runs.values() if r.aid == aid and r.involves(bot_id)]
        for run in runs:
            run.stop.set()
        for run in runs:
            if run.task is not None:
                with contextlib.suppress(Exception):
                    await asyncio.shield(run.task)

    async def close(self) -> None:
        """Shutdown: stop every game (each replays after a restart) and every driver."""
        self.stopping = True
        for run in self.runs.values():
            run.stop.set()
        for event in self.cluster_stops.values():
            event.set()
        for task in list(self.drivers.values()):
            task.cancel()
        tasks = [t for t in self.drivers.values()]
        tasks += [r.task for r in self.runs.values() if r.task is not None]
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    # ---------------------------------------------------------------- scheduling
    def _slot(self, run: GameRun) -> bool:
        """Take a pool slot for ``run`` if the arena may (module doc)."""
        pool = self.games.pool
        keep = 1 if pool.capacity > 1 else 0
        if len(self.runs) >= self.settings.arena_games_at_once or pool.queued:
            return False
        if pool.capacity - pool.running <= keep:
            return False
        return pool.acquire(run)

    async def _drive(self, aid: str) -> None:
        try:
            while not self.stopping:
                record = await self.arenas.record(aid)
                if record.state != "running":
                    return
                mine = {gid for gid, r in self.runs.items() if r.aid == aid}
                pending = [
                    g for g in record.games if g.status == "pending" and g.game_id not in mine
                ]
                if not pending and not mine:
                    if not await self._next_round(record):
                        await self._finish(aid)
                        return
                    continue
                if self.settings.dask_scheduler and pending:
                    await self._on_cluster(record, pending)
                    continue
                for game in pending:
                    run = GameRun(aid, game)
                    if not self._slot(run):
                        break
                    self.runs[run.id] = run
                    run.task = asyncio.get_running_loop().create_task(self._play(record, run))
                self.wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.wake.wait(), POLL_S)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("arena %s: the runner failed", aid)

    async def _next_round(self, record: ArenaRecord) -> bool:
        """Swiss: pair the next round (True), or there is none (False)."""
        rules = rules_of(record)
        played = max((g.round for g in record.games), default=0)
        if rules.format != "swiss" or played >= rules.rounds:
            return False
        bots = [b.id for b in record.bots if not b.removed]
        if len(bots) < 2:
            return False
        count = await asyncio.to_thread(opening_count, record.game)
        pairings = swiss_round(bots, results_of(record), played + 1, count)
        first = max((g.seq for g in record.games), default=-1) + 1
        rows = [
            GameRecord(
                secrets.token_hex(6), first + i, p.round, max(p.opening, 0), p.white, p.black,
                "pending" if p.black is not None else "done",
                None if p.black is not None else "1-0",
                None if p.black is not None else "bye",
            )
            for i, p in enumerate(pairings)
        ]  # fmt: skip
        await self.db.run(self.store.add_games, record.id, rows)
        self.arenas.changed(record.id)
        return True

    async def _finish(self, aid: str) -> None:
        async with self.arenas.lock(aid):
            record = await self.arenas.record(aid)
            if record.state != "running":
                return
            await self.db.run(self.store.set_state, aid, "finished")
        log.info("arena %s finished (%d games)", aid, len(record.games))
        self.arenas.changed(aid)

    # ---------------------------------------------------------------- one game here
    def _new_session(
        self, record: ArenaRecord, game: GameRecord, fen: str, opening: Any
    ) -> tuple[GameSession, str]:
        """The stored game of ``game``: its bots the named players (the session's own
        engine is White's, never run), the book opening played."""
        rules = rules_of(record)
        bots = {b.id: bot_of(b) for b in record.bots}
        white, black = bots[game.white], bots[game.black or ""]
        session = GameSession(
            record.game, fen, human="none", engine=engine_of(rules, white),
            players={"white": player_of(rules, white), "black": player_of(rules, black)},
            played_by="arena",
        )  # fmt: skip
        for uci in opening:
            session.play(uci, by="engine")
        return session, game_name(record.name, white.name, black.name)

    def _data(self, session: GameSession) -> dict[str, Any]:
        """The session as stored, paused: a server loading it never searches for it."""
        data = session.to_dict()
        data["engine"] = {**data["engine"], "_paused": True}
        return data

    async def _play(self, record: ArenaRecord, run: GameRun) -> None:
        game = run.record
        result: ArenaGame | None = None
        try:
            fen, opening = opening_moves(record.game, game.opening)
            session, name = self._new_session(record, game, fen, opening)
            run.session, run.saved_ply = session, session.ply
            data = self._data(session)
            await self.db.run(
                self.db.create, run.id, token_hash(secrets.token_urlsafe(24)), name, data
            )
            await self.db.run(self.store.set_game, run.id, "playing")
            self.arenas.changed(run.aid)
            rules = rules_of(record)
            bots = {b.id: bot_of(b) for b in record.bots}
            loop = asyncio.get_running_loop()

            def on_move(move: ArenaMove, _board: chess.Board) -> None:
                loop.call_soon_threadsafe(self._moved, run, move)

            result = await asyncio.to_thread(
                play_game,
                rules,
                bots[game.white],
                bots[game.black or ""],
                game.opening,
                game_seed(record, game),
                on_move,
                run.stop,
                self._factory(run.id, loop),
            )
            if result is not None:
                conclude(session, result)
                await self._save(run, final=True)
                await self.db.run(self.store.set_game, run.id, "done", result.result, result.reason)
                log.info("arena %s: game %s %s (%s)", run.aid, run.id, result.result, result.reason)
        except Exception:
            log.exception("arena %s: game %s failed", run.aid, run.id)
        finally:
            self.games.release(run)
            del self.runs[run.id]
            async with run.save_lock:  # the moves' writes are over
                pass
            if result is None and not self.stopping:
                with contextlib.suppress(Exception):
                    await self.db.run(self.store.discard_game, run.id)
            live = self.games.store.get(run.id)
            if live is not None and result is not None:
                live.version += 1
                live.broadcast_state()
            self.arenas.changed(run.aid)
            self.wake.set()

    def _moved(self, run: GameRun, move: ArenaMove) -> None:
        """A bot moved (on the loop, in order): the session goes on, then it is written."""
        session = run.session
        if session is None or self.stopping:
            return
        play_move(session, move)
        live = self.games.store.get(run.id)
        if live is not None:
            live.session = session  # watchers see the game the arena plays
        self.games.spawn(self._save(run), game_id=run.id)

    async def _save(self, run: GameRun, final: bool = False) -> None:
        """Write the moves not yet stored (and the result at the end), then announce them."""
        session = run.session
        assert session is not None
        async with run.save_lock:
            if not final and session.ply == run.saved_ply:
                return
            ply = session.ply
            data = self._data(session)
            run.rev = await self.db.run(
                self.db.save, run.id, data, run.saved_ply, session.outcome, True, run.rev
            )
            run.saved_ply = ply
        live = self.games.store.get(run.id)
        if live is not None and not live.closed:
            live.session = session
            live.saved.session, live.saved.rev = data, run.rev
            live.position_changed()
            live.broadcast_state()

    def _factory(
        self, gid: str, loop: asyncio.AbstractEventLoop
    ) -> Callable[..., SearchController]:
        """Controllers whose snapshots also reach the watchers of game ``gid``."""
        from engine.search.controller import SearchController

        settings = self.settings
        games = self.games

        def show(info: SearchInfo) -> None:
            live = games.store.get(gid)
            if live is not None and not live.closed:
                live.on_info(info)

        class Watched(SearchController):
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                self._own: Callable[[SearchInfo], None] | None = None
                super().__init__(*args, **kwargs)

            @property
            def on_info(self) -> Callable[[SearchInfo], None]:
                return self._both

            @on_info.setter
            def on_info(self, callback: Callable[[SearchInfo], None] | None) -> None:
                self._own = callback

            def _both(self, info: SearchInfo) -> None:
                if self._own is not None:
                    self._own(info)
                with contextlib.suppress(RuntimeError):  # the loop closed: shutting down
                    loop.call_soon_threadsafe(show, info)

        def make(*args: Any, **kwargs: Any) -> SearchController:
            kwargs.update(
                node_budget=tree_budget(settings),
                tree_size=settings.tree_nodes,
                info_interval=1.0 / settings.stats_hz,
                nice=settings.search_nice,
            )
            return Watched(*args, **kwargs)

        return make

    # ---------------------------------------------------------------- on a Dask cluster
    async def _on_cluster(self, record: ArenaRecord, pending: list[GameRecord]) -> None:
        """Play ``pending`` on the cluster; store each game as it arrives."""
        from engine.arena.cluster import play_on_cluster

        rules = rules_of(record)
        bots = {b.id: bot_of(b) for b in record.bots}
        jobs = [
            (rules, bots[g.white], bots[g.black or ""], g.opening, game_seed(record, g))
            for g in pending
        ]
        for g in pending:
            await self.db.run(self.store.set_game, g.game_id, "playing")
        self.arenas.changed(record.id)
        loop = asyncio.get_running_loop()
        arrived: asyncio.Queue[tuple[int, Any]] = asyncio.Queue()
        address = self.settings.dask_scheduler or "local"
        stop = self.cluster_stops[record.id] = threading.Event()
        self.cluster_done[record.id] = done = asyncio.Event()

        def pump() -> None:
            try:
                for index, game in play_on_cluster(address, jobs, stop=stop):
                    loop.call_soon_threadsafe(arrived.put_nowait, (index, game))
            except Exception as exc:  # told to the loop, which logs it
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(arrived.put_nowait, (-1, exc))
            finally:
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(arrived.put_nowait, (-1, None))

        threading.Thread(target=pump, name="canopy-arena-dask", daemon=True).start()
        stored: set[int] = set()
        failed = False
        try:
            while True:
                index, game = await arrived.get()
                if index >= 0:
                    await self._store_whole(record, pending[index], game)
                    stored.add(index)
                    continue
                if isinstance(game, Exception):
                    log.error("arena %s: the cluster failed", record.id, exc_info=game)
                    failed = True
                    continue
                break
        finally:
            del self.cluster_stops[record.id]
            if not self.stopping:  # the games not played wait again (a shutdown: at restart)
                for i, g in enumerate(pending):
                    if i not in stored:
                        with contextlib.suppress(Exception):
                            await self.db.run(self.store.discard_game, g.game_id)
                self.arenas.changed(record.id)
            done.set()
        if failed:
            await asyncio.sleep(POLL_S * 10)  # not at once again: the cluster may be down

    async def _store_whole(self, record: ArenaRecord, row: GameRecord, game: ArenaGame) -> None:
        session, name = self._new_session(record, row, game.start_fen, game.opening)
        for move in game.moves:
            play_move(session, move)
        conclude(session, game)
        data = self._data(session)
        digest = token_hash(secrets.token_urlsafe(24))
        await self.db.run(self.db.create, row.game_id, digest, name, data, session.outcome)
        await self.db.run(self.store.set_game, row.game_id, "done", game.result, game.reason)
        self.arenas.changed(record.id)
