"""JSON API: health, limits, algorithms, creating games and reading them (state, PGN)."""

from __future__ import annotations

import logging
import threading
from typing import Any, Literal

from fastapi import APIRouter, Query, Request, Response, status
from fastapi.responses import JSONResponse

from app.bounds import describe_algorithms
from app.deps import ServiceDep
from app.limits import client_address
from app.schemas import CreateGame, GameCreated, Health
from engine.play.review import review_plies

log = logging.getLogger("canopy.api")

router = APIRouter(prefix="/api", tags=["api"])


@router.get("/health", response_model=Health, responses={503: {"model": Health}})
async def health(request: Request, service: ServiceDep) -> Any:
    """Liveness and readiness: the worker pool, the database, memory, games and sockets.

    ``status`` is ``ok``, or ``degraded`` with HTTP 503 when the database does not
    answer ``SELECT 1`` within two seconds (a load balancer then stops sending
    new users here). The probe runs on a thread of its own, so a busy store or
    busy search controllers do not make a healthy server look dead.
    """
    db: dict[str, Any] = {"backend": service.db.backend}
    ok = True
    try:
        ms = await service.db.probe(timeout=2.0)
        db.update(ok=True, latency_ms=round(ms, 2))
    except Exception as exc:  # any failure of the probe is a failed database
        ok = False
        db.update(ok=False, error=exc.__class__.__name__)
    body = {
        "status": "ok" if ok else "degraded",
        **service.health(),
        "db": db,
        "warm": bool(getattr(request.app.state, "warm", False)),
        "memory_mb": _rss_mb(),
        "threads": threading.active_count(),
    }
    return JSONResponse(body, status_code=200 if ok else 503)


def _rss_mb() -> float | None:
    """Resident memory of this process (Linux /proc; None elsewhere)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return None


@router.get("/settings")
def server_limits(service: ServiceDep) -> dict[str, Any]:
    """Defaults and allowed ranges (think time, iterations, threads) for the new-game form."""
    return service.limits()


@router.get("/server")
def server_status(request: Request, service: ServiceDep) -> dict[str, Any]:
    """Readiness and load: kernels warmed, searches running and queued, games held."""
    return {
        "warm": bool(getattr(request.app.state, "warm", False)),
        "pool": service.pool.status(),
        "games": len(service.store),
    }


@router.get("/algorithms")
def algorithms(game: Literal["chess", "knight"] = "chess") -> list[dict[str, Any]]:
    """Each algorithm with its parameters (name, type, default, min, max, description).

    Defaults depend on the game (``capture_first`` is on for knight chess).
    """
    return describe_algorithms(game)


@router.get("/games")
async def recent_games(service: ServiceDep, limit: int = Query(50, ge=1, le=500)) -> dict[str, Any]:
    """The most recently changed games in the database (no tokens), newest first."""
    games = await service.db.run(service.db.recent, limit)
    return {"games": [g.to_dict() for g in games]}


@router.post("/games", status_code=status.HTTP_201_CREATED, response_model=GameCreated)
async def create_game(request: Request, body: CreateGame, service: ServiceDep) -> Any:
    """A new game; the ``token`` authorises moves over the websocket (keep it secret).

    If the engine has the first move it starts thinking at once. Each client
    address may create ``games_per_minute`` games a minute (429 beyond).
    """
    limiter = request.app.state.create_limiter
    if not limiter.allow(client_address(request)):
        return JSONResponse(
            {"code": "rate_limited", "message": "too many new games from this address; wait"},
            status_code=429,
            headers={"Retry-After": "60"},
        )
    game = await service.create(body)
    return {
        "id": game.id,
        "token": game.token,
        "url": f"/games/{game.id}",
        "ws": f"/ws/games/{game.id}?token={game.token}",
        "state": game.state_payload("player"),
    }


@router.get("/games/{game_id}")
async def get_game(game_id: str, service: ServiceDep) -> dict[str, Any]:
    """Current state (as in the websocket ``state`` frame, seen by a spectator)."""
    return (await service.load(game_id)).state_payload("spectator")


@router.get("/games/{game_id}/positions")
async def get_positions(game_id: str, service: ServiceDep) -> dict[str, Any]:
    """Full FEN after every ply (index 0: the start), for browsing very long games."""
    session = (await service.load(game_id)).session
    return {"id": game_id, "fens": [session.fen_at(p) for p in range(session.ply + 1)]}


@router.get("/games/{game_id}/review")
async def get_review(
    game_id: str,
    service: ServiceDep,
    first: int = Query(1, alias="from", ge=1, description="the first ply to send (1: all)"),
) -> dict[str, Any]:
    """Every ply with what the engine thought: the search kept with it and ``eval``.

    ``eval`` is the engine's score of the position after the ply as White's expected
    score in [0, 1], read from the stored searches (``engine.play.review``); ``from``
    lets a page that has the earlier plies fetch only the new ones.
    """
    session = (await service.load(game_id)).session
    return {"id": game_id, "game": session.game.name, "plies": review_plies(session, first)}


@router.get("/games/{game_id}/pgn")
async def get_pgn(
    game_id: str,
    service: ServiceDep,
    download: bool = Query(False, description="send as an attachment (a file download)"),
) -> Response:
    """The game as PGN, with the search settings in the headers and engine notes as comments."""
    game = await service.load(game_id)
    pgn = game.session.pgn(event=game.name)
    disposition = "attachment" if download else "inline"
    return Response(
        pgn,
        media_type="application/x-chess-pgn",
        headers={"Content-Disposition": f'{disposition}; filename="canopy-{game_id}.pgn"'},
    )
