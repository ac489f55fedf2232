"""HTML pages: the app (``/``, ``/games/{id}``), the projector view, the recent games.

The templates carry no inline script or style (the Content-Security-Policy
forbids both): the page's data travels in ``data-`` attributes, everything
else is fetched, and every user-supplied string (game names, FENs, ids) goes
through Jinja's autoescaping.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from app.deps import ServiceDep
from app.errors import GameNotFoundError

HERE = Path(__file__).resolve().parents[1]
templates = Jinja2Templates(directory=HERE / "templates")
router = APIRouter(tags=["pages"])


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def index(request: Request, service: ServiceDep) -> HTMLResponse:
    return templates.TemplateResponse(request, "index.html", _context(service, None))


@router.get("/games", response_class=HTMLResponse, include_in_schema=False)
async def recent_games(request: Request, service: ServiceDep) -> HTMLResponse:
    """The most recently played games, with links to play on (creator) or watch."""
    games = await service.db.run(service.db.recent, 100)
    now = dt.datetime.now(dt.UTC)
    rows = [{**g.to_dict(), "ago": _ago(now - g.updated_at)} for g in games]
    return templates.TemplateResponse(request, "games.html", {"games": rows})


@router.get("/games/{game_id}", response_class=HTMLResponse, include_in_schema=False)
async def game_page(game_id: str, request: Request, service: ServiceDep) -> HTMLResponse:
    return await _game_page(game_id, request, service, "app")


@router.get("/games/{game_id}/watch", response_class=HTMLResponse, include_in_schema=False)
async def projector_page(game_id: str, request: Request, service: ServiceDep) -> HTMLResponse:
    """The projector view: read-only (never sends a token), large board, live search."""
    return await _game_page(game_id, request, service, "projector")


async def _game_page(
    game_id: str, request: Request, service: ServiceDep, view: str
) -> HTMLResponse:
    try:
        await service.load(game_id)
        found = True
    except GameNotFoundError:
        found = False
    context = _context(
        service, game_id if found else None, missing=None if found else game_id, view=view
    )
    return templates.TemplateResponse(
        request, "index.html", context, status_code=200 if found else 404
    )


def _context(
    service: ServiceDep, game_id: str | None, missing: str | None = None, view: str = "app"
) -> dict[str, Any]:
    return {
        "game_id": game_id or "",
        "missing": (missing or "")[:80],
        "stats_hz": service.settings.stats_hz,
        "view": view,
    }


def _ago(delta: dt.timedelta) -> str:
    seconds = max(0, int(delta.total_seconds()))
    if seconds < 60:
        return "just now"
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = seconds // size
            return f"{n} {unit}{'s' if n != 1 else ''} ago"
    return "just now"  # pragma: no cover
