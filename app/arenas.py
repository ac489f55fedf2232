"""The class arena on the server: arenas and their bots, the teacher's actions, the view.

A teacher creates an arena (``POST /api/arenas``: the rules, checked by
``engine.arena.rules``) and gets its token; students join with a bot each
and may edit it until the start; the teacher starts, pauses and ends the
tournament, whose games :mod:`app.arena_runner` plays. Everything is in the
database (``app.arena_store``) before it is announced; every refusal is an
``ArenaError`` whose code names it and whose message names the field or the
limit, and it changes nothing (each arena's changes are serialised by its
lock). Watchers of ``/ws/arenas/{id}`` get the view (:func:`arena_view`) at
once and after every change, at most four times a second.

The tournament's logic (pairings, standings, crosstable, what won) is
``engine.arena``'s; this module only stores, checks tokens and limits, and
shows.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any

from app.arena_schemas import CreateArena, EditBot, JoinBot
from app.arena_store import ArenaRecord, ArenaStore, BotRecord, GameRecord
from app.errors import ShuttingDownError
from app.service import GameService
from app.store import token_hash
from engine.arena.pairing import round_robin
from engine.arena.play import opening_count
from engine.arena.rules import ArenaError, ArenaRules, Bot
from engine.arena.standings import Result, crosstable, standings, what_won

log = logging.getLogger("canopy.arena")

#: What an id can look like (12 hex digits; anything else is not looked up).
_ID_CHARS = frozenset("0123456789abcdefABCDEF")
#: The fastest the view of one arena goes out to its watchers (seconds between frames).
VIEW_INTERVAL = 0.25


def rules_of(record: ArenaRecord) -> ArenaRules:
    r = record.rules
    return ArenaRules(
        game=record.game,
        movetime_ms=r.get("movetime_ms"),
        iterations=r.get("iterations"),
        algorithms=tuple(r.get("algorithms") or ()),
        free={k: tuple(v) for k, v in (r.get("free") or {}).items()},
        format=r.get("format", "round-robin"),
        rounds=int(r.get("rounds", 1)),
        max_plies=int(r.get("max_plies", 0)),
    )


def rules_data(rules: ArenaRules) -> dict[str, Any]:
    """The rules as JSON (what the store keeps and ``GET`` shows; :func:`rules_of` reads it)."""
    return {
        "movetime_ms": rules.movetime_ms,
        "iterations": rules.iterations,
        "algorithms": list(rules.algorithms),
        "free": {k: list(v) for k, v in rules.free.items()},
        "format": rules.format,
        "rounds": rules.rounds,
        "max_plies": rules.max_plies,
    }


def bot_of(b: BotRecord) -> Bot:
    return Bot(id=b.id, name=b.name, algorithm=b.algorithm, params=dict(b.params))


def results_of(record: ArenaRecord) -> list[Result]:
    return [
        Result(g.white, g.black, g.result)
        for g in record.games
        if g.status == "done" and g.result is not None
    ]


def arena_view(record: ArenaRecord) -> dict[str, Any]:
    """The body of ``GET /api/arenas/{id}`` and of the websocket's ``arena`` frame."""
    rules = rules_of(record)
    bots = [bot_of(b) for b in record.bots]
    names = {b.id: b.name for b in record.bots}
    results = results_of(record)
    table = standings(bots, results)
    cells = crosstable(bots, results)
    won = what_won(bots, table, rules)
    return {
        "id": record.id,
        "name": record.name,
        "state": record.state,
        "game": record.game,
        **rules_data(rules),
        "created_at": record.created_at.isoformat(),
        "bots": [
            {
                "id": b.id,
                "name": b.name,
                "algorithm": b.algorithm,
                "params": b.params,
                "label": bot.label(record.game),
                "engine": bot.engine(record.game),
                "removed": b.removed,
            }
            for b, bot in zip(record.bots, bots, strict=True)
        ],
        "standings": [
            {
                "bot_id": s.bot_id,
                "rank": s.rank,
                "name": names.get(s.bot_id, ""),
                "points": s.points,
                "games": s.games,
                "wins": s.wins,
                "draws": s.draws,
                "losses": s.losses,
                "score": s.score,
                "elo": s.elo,
                "elo_ci95": list(s.elo_ci95) if s.elo_ci95 is not None else None,
            }
            for s in table
        ],
        "games": [
            {
                "id": g.game_id,
                "round": g.round,
                "opening": g.opening,
                "white": g.white,
                "black": g.black,
                "status": g.status,
                "result": g.result,
                "reason": g.reason,
            }
            for g in record.games
        ],
        "crosstable": {
            "order": [s.bot_id for s in table],
            "cells": [
                [None if c is None else {"points": c[0], "games": c[1]} for c in row]
                for row in cells
            ],
        },
        "playing": [g.game_id for g in record.games if g.status == "playing"],
        "what_won": {
            "parameter": won.parameter,
            "kind": won.kind,
            "points": [{"bot_id": b, "value": v, "score": s} for b, v, s in won.points],
        },
    }


class ArenaWatcher:
    """One websocket's view: only the latest frame is kept (a slow phone skips frames)."""

    def __init__(self) -> None:
        self.latest: str | None = None
        self.ready = asyncio.Event()

    def put(self, text: str) -> None:
        self.latest = text
        self.ready.set()

    async def next(self) -> str:
        await self.ready.wait()
        self.ready.clear()
        text, self.latest = self.latest, None
        return text or ""


class ArenaService:
    """Creates arenas, takes bots, carries out the teacher's actions, feeds the watchers."""

    def __init__(self, games: GameService) -> None:
        self.games = games
        self.settings = games.settings
        self.db = games.db
        self.store = ArenaStore(games.db)
        self._locks: dict[str, asyncio.Lock] = {}
        self._create_lock = asyncio.Lock()
        self.watchers: dict[str, set[ArenaWatcher]] = {}
        self._last_sent: dict[str, float] = {}
        self._flush_due: set[str] = set()
        #: Set by the runner: called after a start/resume (``app.arena_runner``).
        self.on_start: Callable[[str], Awaitable[None]] | None = None
        #: Set by the runner: stop the games of an arena (or of one bot in it).
        self.on_stop: Callable[[str, str | None], Awaitable[None]] | None = None

    def lock(self, aid: str) -> asyncio.Lock:
        return self._locks.setdefault(aid, asyncio.Lock())

    # ---------------------------------------------------------------- reading
    async def record(self, aid: str) -> ArenaRecord:
        if not aid or len(aid) > 32 or not set(aid) <= _ID_CHARS:
            raise ArenaError("not_found", f"no arena with id {aid[:40]!r}")
        found = await self.db.run(self.store.load, aid)
        if found is None:
            raise ArenaError("not_found", f"no arena with id {aid!r}")
        return found

    async def view(self, aid: str) -> dict[str, Any]:
        record = await self.record(aid)
        return await asyncio.to_thread(arena_view, record)

    # ---------------------------------------------------------------- creating
    async def create(self, req: CreateArena) -> tuple[str, str]:
        """Check the rules, store the arena; (id, the teacher's token)."""
        if self.games.stopping:
            raise ShuttingDownError("the server is restarting; try again in a moment")
        rules = ArenaRules(
            game=req.game,
            movetime_ms=req.movetime_ms,
            iterations=req.iterations,
            algorithms=tuple(req.algorithms or ()),
            free={k: tuple(v) for k, v in (req.free or {}).items()},
            format=req.format,
            rounds=req.rounds,
            max_plies=req.max_plies or 0,
        )
        stored = rules_data(rules)
        aid, token = secrets.token_hex(6), secrets.token_urlsafe(24)
        name = req.name or f"Arena {aid[:4]}"
        async with self._create_lock:
            active = await self.db.run(self.store.count_active)
            limit = self.settings.max_arenas
            if active >= limit:
                raise ArenaError(
                    "too_many_arenas",
                    f"{active} arenas are open or running, the most this server holds "
                    f"(CANOPY_MAX_ARENAS={limit}); end one first",
                )
            seed = secrets.randbelow(2**31)
            await self.db.run(
                self.store.create, aid, token_hash(token), name, rules.game, stored, seed
            )
        log.info("arena %s created (%s, %s)", aid, rules.game, rules.format)
        return aid, token

    # ---------------------------------------------------------------- tokens
    @staticmethod
    def _matches(token: str | None, digest: str) -> bool:
        if not token or not isinstance(token, str) or len(token) > 256:
            return False
        return secrets.compare_digest(token_hash(token), digest)

    def _teacher(self, record: ArenaRecord, token: str | None, action: str) -> None:
        if not self._matches(token, record.token_hash):
            raise ArenaError("forbidden", f"{action} needs the teacher's token (?token=...)")

    @staticmethod
    def _bot(record: ArenaRecord, bid: str) -> BotRecord:
        for b in record.bots:
            if b.id == bid and not b.removed:
                return b
        raise ArenaError("not_found", f"no bot with id {bid[:40]!r} in this arena")

    @staticmethod
    def _open(record: ArenaRecord, action: str) -> None:
        if record.state != "open":
            raise ArenaError(
                "arena_closed", f"the arena is {record.state}: {action} only before the start"
            )

    # ---------------------------------------------------------------- bots
    async def join(self, aid: str, req: JoinBot, client: str) -> tuple[str, str]:
        """A student's bot: checked against the rules and the limits; (bot id, bot token)."""
        async with self.lock(aid):
            record = await self.record(aid)
            self._open(record, "bots join")
            name, algorithm, params = rules_of(record).validate_bot(
                req.name, req.algorithm, req.params
            )
            present = [b for b in record.bots if not b.removed]
            limit = self.settings.arena_max_bots
            if len(present) >= limit:
                raise ArenaError(
                    "too_many_bots",
                    f"the arena has {len(present)} bots, the most it takes "
                    f"(CANOPY_ARENA_MAX_BOTS={limit})",
                )
            mine = sum(1 for b in present if b.client == client)
            per = self.settings.arena_bots_per_client
            if mine >= per:
                raise ArenaError(
                    "too_many_bots",
                    f"this device already entered {mine} bots, the most one may "
                    f"(CANOPY_ARENA_BOTS_PER_CLIENT={per})",
                )
            bid, token = secrets.token_hex(6), secrets.token_urlsafe(24)
            await self.db.run(
                self.store.add_bot, aid, bid, token_hash(token), name, algorithm, params, client
            )
        log.info("arena %s: bot %s joined (%s)", aid, bid, algorithm)
        self.changed(aid)
        return bid, token

    async def edit(self, aid: str, bid: str, req: EditBot, bot_token: str | None) -> None:
        async with self.lock(aid):
            record = await self.record(aid)
            bot = self._bot(record, bid)
            if not self._matches(bot_token, bot.token_hash):
                raise ArenaError("forbidden", "editing a bot needs its bot token (?bot_token=...)")
            self._open(record, "bots may be edited")
            algorithm = req.algorithm or bot.algorithm
            if req.params is not None:
                params = req.params
            elif algorithm == bot.algorithm:  # keep what the student changed
                params = bot_of(bot).changed(record.game)
            else:
                params = {}
            name, algorithm, full = rules_of(record).validate_bot(
                req.name if req.name is not None else bot.name, algorithm, params
            )
            await self.db.run(self.store.update_bot, bid, name, algorithm, full)
        self.changed(aid)

    async def remove(self, aid: str, bid: str, token: str | None, bot_token: str | None) -> None:
        """The teacher removes any bot at any time; its owner, before the start."""
        async with self.lock(aid):
            record = await self.record(aid)
            bot = self._bot(record, bid)
            teacher = self._matches(token, record.token_hash)
            if not teacher and not self._matches(bot_token, bot.token_hash):
                raise ArenaError(
                    "forbidden", "removing a bot needs the teacher's token or the bot's token"
                )
            if not teacher:
                self._open(record, "bots may leave")
            if record.state == "finished":
                raise ArenaError("arena_closed", "the arena is finished: its bots stay")
            started = record.state != "open"
            if started and self.on_stop is not None:
                await self.on_stop(aid, bid)
            await self.db.run(self.store.remove_bot, aid, bid, started)
        log.info("arena %s: bot %s removed", aid, bid)
        self.changed(aid)

    # ---------------------------------------------------------------- the teacher
    async def start(self, aid: str, token: str | None) -> None:
        """Pair the bots (round robin: every game now; Swiss: the first round) and go;
        a paused arena goes on."""
        async with self.lock(aid):
            record = await self.record(aid)
            self._teacher(record, token, "starting the arena")
            if record.state == "running":
                return
            if record.state == "finished":
                raise ArenaError("arena_closed", "the arena is finished; create a new one")
            if record.state == "open":
                bots = [b.id for b in record.bots if not b.removed]
                if len(bots) < 2:
                    raise ArenaError(
                        "too_few_bots", f"a tournament needs at least 2 bots; it has {len(bots)}"
                    )
                rules = rules_of(record)
                if rules.format == "round-robin":
                    count = await asyncio.to_thread(opening_count, record.game)
                    pairings = round_robin(bots, rules.rounds, count)
                    await self.db.run(
                        self.store.add_games,
                        aid,
                        [
                            GameRecord(secrets.token_hex(6), i, p.round, p.opening, p.white,
                                       p.black, "pending", None, None)
                            for i, p in enumerate(pairings)
                        ],
                    )  # fmt: skip
                # Swiss: the runner pairs each round when the one before has finished.
            await self.db.run(self.store.set_state, aid, "running")
        log.info("arena %s running", aid)
        self.changed(aid)
        if self.on_start is not None:
            await self.on_start(aid)

    async def pause(self, aid: str, token: str | None) -> None:
        """No new game starts; the ones being played finish."""
        async with self.lock(aid):
            record = await self.record(aid)
            self._teacher(record, token, "pausing the arena")
            if record.state != "running":
                raise ArenaError("arena_closed", f"the arena is {record.state}, not running")
            await self.db.run(self.store.set_state, aid, "paused")
        self.changed(aid)

    async def end(self, aid: str, token: str | None) -> None:
        """No more games (one being played stops and is not counted): ``finished``."""
        async with self.lock(aid):
            record = await self.record(aid)
            self._teacher(record, token, "ending the arena")
            if record.state == "finished":
                return
            await self.db.run(self.store.set_state, aid, "finished")
            if self.on_stop is not None:
                await self.on_stop(aid, None)
        log.info("arena %s ended", aid)
        self.changed(aid)

    # ---------------------------------------------------------------- watchers
    def watch(self, aid: str) -> ArenaWatcher:
        watcher = ArenaWatcher()
        self.watchers.setdefault(aid, set()).add(watcher)
        return watcher

    def unwatch(self, aid: str, watcher: ArenaWatcher) -> None:
        held = self.watchers.get(aid)
        if held is not None:
            held.discard(watcher)
            if not held:
                del self.watchers[aid]

    def changed(self, aid: str) -> None:
        """Something of ``aid`` changed: its watchers get the view (throttled)."""
        if not self.watchers.get(aid) or aid in self._flush_due:
            return
        self._flush_due.add(aid)
        wait = self._last_sent.get(aid, 0.0) + VIEW_INTERVAL - time.monotonic()
        self.games.spawn(self._flush(aid, max(0.0, wait)))

    async def _flush(self, aid: str, wait: float) -> None:
        try:
            if wait:
                await asyncio.sleep(wait)
        finally:
            self._flush_due.discard(aid)
        self._last_sent[aid] = time.monotonic()
        with contextlib.suppress(ArenaError):
            text = await self.frame(aid)
            for watcher in list(self.watchers.get(aid, ())):
                watcher.put(text)

    async def frame(self, aid: str) -> str:
        from app.streaming import dumps

        return dumps({"type": "arena", **(await self.view(aid))})
