"""Analyses of games played elsewhere: accepted, stored, run in the background, resumed.

``POST /api/analyses`` hands a PGN here. It is read (``engine.play.pgnread``:
a refusal names the line), checked against the server's limits and stored
as a game with its analysis row (``app.analysis_store``) before anyone learns
its id. Then a background task searches its positions one by one
(``engine.play.analysis.Analyser``), each search in a slot of the server's
search pool: a position waits in the same queue as the live games' searches
and gives its slot back when it is done, so a live game waits at most one
position's think time behind an analysis. Each finished position is written
at once; at startup the unfinished analyses go on where they stopped.

At most ``max_analyses`` analyses run at once on a server (more are refused,
not queued: a player wants to know now); ``analysis_max_plies`` bounds a game.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import unicodedata
from typing import Any

from app.analysis_store import AnalysisRecord, AnalysisStore
from app.bounds import validate_params
from app.errors import GameNotFoundError, ShuttingDownError
from app.schemas import AnalysisRequest
from app.service import GameService
from app.store import token_hash
from engine.errors import CanopyError, InvalidParameterError
from engine.explain.summary import SearchSummary
from engine.play import EngineSettings, GameSession
from engine.play.analysis import (
    MARKS,
    THRESHOLDS,
    Analyser,
    AnalysisSettings,
    Check,
    analysis_plies,
    game_session,
    side_summary,
)
from engine.play.errors import TooManyPliesError
from engine.play.pgnread import PgnGame, read_pgn
from engine.search.registry import DEFAULT_ALGORITHM, get_algorithm

log = logging.getLogger("canopy.analysis")

#: What a game id can look like (ids are 12 hex digits; anything else is not looked up).
_ID_CHARS = frozenset("0123456789abcdefABCDEF")


class TooManyAnalysesError(CanopyError):
    code = "too_many_analyses"


class AnalysisRun:
    """One analysis being run: a job of the search pool (:class:`app.pool.Waiter`)."""

    def __init__(self, aid: str, record: AnalysisRecord, session: GameSession) -> None:
        self.id = aid
        self.done = record.done
        self.total = record.total
        self.status = "queued"
        self.analyser = Analyser(
            session.game,
            session.start_fen,
            session.moves,
            AnalysisSettings(
                algorithm=record.algorithm,
                params=record.params,
                movetime_ms=record.movetime_ms,
            ),
        )
        #: The search of the position before the next one (its ply is checked against it).
        self.previous = _search_at(session, record, record.done - 1)
        self.task: asyncio.Task[None] | None = None
        self._admitted = asyncio.Event()

    def __hash__(self) -> int:
        return hash(self.id)

    async def admitted(self) -> None:
        self._admitted.set()

    def queue_moved(self) -> None:
        """Its place in the queue is read on demand (``GET /api/analyses/{id}``)."""


class AnalysisService:
    """Creates analyses, runs them on the game service's search pool, answers for them."""

    def __init__(self, games: GameService) -> None:
        self.games = games
        self.settings = games.settings
        self.db = games.db
        self.store = AnalysisStore(games.db)
        self.runs: dict[str, AnalysisRun] = {}
        self._admission = asyncio.Lock()
        self.stopping = False

    # ---------------------------------------------------------------- limits
    def limits(self) -> dict[str, Any]:
        s = self.settings
        return {
            "movetime_ms": {
                "default": s.analysis_movetime_ms,
                "min": s.min_think_ms,
                "max": s.analysis_max_movetime_ms,
            },
            "max_plies": s.analysis_max_plies,
            "max_analyses": s.max_analyses,
            "running": len(self.runs),
            "thresholds": dict(THRESHOLDS),
        }

    # ---------------------------------------------------------------- creating
    async def create(self, req: AnalysisRequest) -> str:
        """Read, check and store an analysis, start it; its id (refusals store nothing)."""
        if self.stopping or self.games.stopping:
            raise ShuttingDownError("the server is restarting; try again in a moment")
        s = self.settings
        algorithm = req.algorithm or DEFAULT_ALGORITHM
        get_algorithm(algorithm)  # an unknown name is refused before the PGN is read
        movetime = s.analysis_movetime_ms if req.movetime_ms is None else req.movetime_ms
        if not s.min_think_ms <= movetime <= s.analysis_max_movetime_ms:
            raise InvalidParameterError(
                f"movetime_ms must lie in {s.min_think_ms}..{s.analysis_max_movetime_ms}, "
                f"not {movetime}"
            )
        self._check_room()
        try:
            read = await asyncio.to_thread(read_pgn, req.pgn, max_plies=s.analysis_max_plies)
        except TooManyPliesError as exc:
            raise TooManyPliesError(f"{exc} (CANOPY_ANALYSIS_MAX_PLIES)") from None
        given = dict(req.params or {})
        checked = validate_params(algorithm, given, read.game.name)  # refuses a bad one
        params = {name: checked[name] for name in given}  # the ones asked for (for people)
        engine = EngineSettings(algorithm=algorithm, params=params, movetime_ms=movetime)
        session = game_session(read, engine)
        async with self._admission:
            self._check_room()
            aid = await self._store(read, session, movetime)
            record = AnalysisRecord(
                id=aid,
                status="queued",
                done=0,
                total=len(read.moves) + 1,
                algorithm=algorithm,
                params=params,
                movetime_ms=movetime,
                headers=read.headers,
                notes=read.notes,
                final_search=None,
                checks={},
                error=None,
                created_at=session.created,
                updated_at=session.created,
            )
            self._start(record, session)
        log.info(
            "analysis %s created (%s, %d plies, %s)", aid, read.game.name, session.ply, algorithm
        )
        return aid

    def _check_room(self) -> None:
        limit = self.settings.max_analyses
        if len(self.runs) >= limit:
            raise TooManyAnalysesError(
                f"{len(self.runs)} analyses are running, the most this server runs at once "
                f"(CANOPY_MAX_ANALYSES={limit}); try again when one has finished"
            )

    async def _store(self, read: PgnGame, session: GameSession, movetime: int) -> str:
        aid = secrets.token_hex(6)
        fields = {
            "status": "queued",
            "total": len(read.moves) + 1,
            "algorithm": session.engine.algorithm,
            "params": dict(session.engine.params),
            "movetime_ms": movetime,
            "headers": read.headers,
            "notes": read.notes,
        }
        digest = token_hash(secrets.token_urlsafe(24))  # nobody holds it: nobody moves
        await self.db.run(
            self.store.create, aid, digest, _title(read.headers), session.to_dict(), fields
        )
        return aid

    # ---------------------------------------------------------------- running
    def _start(self, record: AnalysisRecord, session: GameSession) -> None:
        run = AnalysisRun(record.id, record, session)
        self.runs[record.id] = run
        run.task = asyncio.get_running_loop().create_task(self._run(run))

    async def resume(self) -> int:
        """At startup: go on with every analysis a stop interrupted. Returns how many."""
        ids = await self.db.run(self.store.unfinished)
        for aid in ids:
            loaded = await self.db.run(self.store.load, aid)
            if loaded is None or aid in self.runs:
                continue
            record, stored = loaded
            session = GameSession.from_dict(stored.session)
            self._start(record, session)
            log.info("analysis %s resumed at position %d of %d", aid, record.done, record.total)
        return len(ids)

    async def _run(self, run: AnalysisRun) -> None:
        plies = run.total - 1
        try:
            for index in range(run.done, run.total):
                await self._slot(run)
                run.status = "running"
                try:
                    found = await asyncio.to_thread(run.analyser.analyse, index, run.previous)
                finally:
                    self.games.release(run)
                if self.stopping:
                    return  # stopped mid-search: the position is searched again after a restart
                search = found.search.to_dict() if found.search is not None else None
                check = found.check.to_dict() if found.check is not None else None
                status = "done" if index + 1 == run.total else "running"
                await self.db.run(
                    self.store.save_position, run.id, index, plies, search, check, status
                )
                run.done, run.previous = index + 1, found.search
            log.info("analysis %s done (%d positions)", run.id, run.total)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if self.stopping:
                return
            log.exception("analysis %s failed", run.id)
            message = f"the analysis stopped at position {run.done + 1}: {exc}"[:300]
            with contextlib.suppress(Exception):
                await self.db.run(self.store.set_status, run.id, "failed", message)
        finally:
            run.analyser.stop()
            if self.runs.get(run.id) is run:
                del self.runs[run.id]

    async def _slot(self, run: AnalysisRun) -> None:
        """Wait for a slot of the search pool (queued behind live games that asked first)."""
        run._admitted.clear()
        if self.games.pool.request(run):
            return
        run.status = "queued"
        await run._admitted.wait()

    async def close(self) -> None:
        """Shutdown: stop every analysis now (each resumes at its position after a restart)."""
        self.stopping = True
        runs = list(self.runs.values())
        for run in runs:
            run.analyser.stop()
            if run.task is not None:
                run.task.cancel()
        for run in runs:
            if run.task is not None:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await run.task
            self.games.pool.release(run)

    # ---------------------------------------------------------------- reading
    async def is_analysis(self, aid: str) -> bool:
        if not _plausible(aid):
            return False
        return bool(await self.db.run(self.store.exists, aid))

    async def get(self, aid: str, first: int = 1) -> dict[str, Any]:
        """The analysis as ``GET /api/analyses/{id}`` sends it (plies from ``first``)."""
        if not _plausible(aid):
            raise GameNotFoundError(f"no analysis with id {aid[:40]!r}")
        loaded = await self.db.run(self.store.load, aid)
        if loaded is None:
            raise GameNotFoundError(f"no analysis with id {aid!r}")
        record, stored = loaded
        run = self.runs.get(aid)
        place = self.games.pool.position(run) if run is not None else None
        return await asyncio.to_thread(_payload, record, stored.session, run, first, place)

    async def recent(self, limit: int = 50) -> list[dict[str, Any]]:
        rows = await self.db.run(self.store.recent, limit)
        for row in rows:
            run = self.runs.get(row["id"])
            if run is not None:
                row.update(status=run.status, done=run.done)
        return rows


def _payload(
    record: AnalysisRecord,
    data: dict[str, Any],
    run: AnalysisRun | None,
    first: int,
    queue_position: int | None,
) -> dict[str, Any]:
    """The response body (off the event loop: the session is rebuilt from its moves)."""
    session = GameSession.from_dict(data)
    final = SearchSummary.from_dict(record.final_search) if record.final_search else None
    done = run.done if run is not None else record.done
    checks = {int(ply): Check.from_dict(c) for ply, c in record.checks.items()}
    plies = analysis_plies(session, final, done, checks)
    status = record.status
    if run is not None:
        status = run.status
    elif status in ("queued", "running"):
        status = "queued"  # stored as unfinished, not running here: waits for a restart
    return {
        "id": record.id,
        "status": status,
        "done": done,
        "total": record.total,
        "queue_position": queue_position,
        "game": session.game.name,
        "url": f"/games/{record.id}",
        "start_fen": session.start_fen,
        "algorithm": record.algorithm,
        "params": record.params,
        "movetime_ms": record.movetime_ms,
        "headers": record.headers,
        "notes": record.notes,
        "error": record.error,
        "thresholds": dict(THRESHOLDS),
        "marks": list(MARKS),
        "summary": side_summary(plies),
        "created_at": record.created_at.isoformat(),
        "updated_at": record.updated_at.isoformat(),
        "plies": plies[max(0, first - 1) :],
    }


def _search_at(session: GameSession, record: AnalysisRecord, index: int) -> SearchSummary | None:
    """The stored search of position ``index`` (None before the start or where none was)."""
    if index < 0:
        return None
    if index < session.ply:
        return session.history[index].search
    return SearchSummary.from_dict(record.final_search) if record.final_search else None


def _plausible(aid: str) -> bool:
    return bool(aid) and len(aid) <= 32 and set(aid) <= _ID_CHARS


def _title(headers: dict[str, str]) -> str:
    """The game's name in lists: "Analysis: White – Black" from the tags (printable only)."""

    def clean(value: str | None) -> str:
        text = "".join(
            c for c in (value or "") if unicodedata.category(c) not in ("Cc", "Cf", "Cs", "Co")
        )
        return " ".join(text.split())

    white, black = clean(headers.get("White")), clean(headers.get("Black"))
    players = (
        f"{white or '?'} – {black or '?'}" if (white or black) else clean(headers.get("Event"))
    )
    return f"Analysis: {players}"[:80] if players else "Analysis"
