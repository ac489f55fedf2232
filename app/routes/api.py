"""JSON API: health, limits, algorithms, creating games and reading them (state, PGN)."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Query, Request, Response, status

from app.deps import ServiceDep
from app.games import describe_algorithms
from app.schemas import CreateGame, GameCreated, Health

router = APIRouter(prefix="/api", tags=["api"])


@router.get("/health", response_model=Health)
def health() -> dict[str, str]:
    """Liveness: the process answers (the contract fixes this body)."""
    return {"status": "ok"}


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


@router.post("/games", status_code=status.HTTP_201_CREATED, response_model=GameCreated)
async def create_game(body: CreateGame, service: ServiceDep) -> dict[str, Any]:
    """A new game; the ``token`` authorises moves over the websocket (keep it secret).

    If the engine has the first move it starts thinking at once.
    """
    game = await service.create(body)
    return {
        "id": game.id,
        "token": game.token,
        "url": f"/games/{game.id}",
        "ws": f"/ws/games/{game.id}?token={game.token}",
        "state": game.state_payload("player"),
    }


@router.get("/games/{game_id}")
def get_game(game_id: str, service: ServiceDep) -> dict[str, Any]:
    """Current state (as in the websocket ``state`` frame, seen by a spectator)."""
    return service.get(game_id).state_payload("spectator")


@router.get("/games/{game_id}/positions")
def get_positions(game_id: str, service: ServiceDep) -> dict[str, Any]:
    """Full FEN after every ply (index 0: the start), for browsing very long games."""
    session = service.get(game_id).session
    return {"id": game_id, "fens": [session.fen_at(p) for p in range(session.ply + 1)]}


@router.get("/games/{game_id}/pgn")
def get_pgn(
    game_id: str,
    service: ServiceDep,
    download: bool = Query(False, description="send as an attachment (a file download)"),
) -> Response:
    """The game as PGN, with the search settings in the headers and engine notes as comments."""
    pgn = service.get(game_id).session.pgn()
    disposition = "attachment" if download else "inline"
    return Response(
        pgn,
        media_type="application/x-chess-pgn",
        headers={"Content-Disposition": f'{disposition}; filename="canopy-{game_id}.pgn"'},
    )
