"""HTML pages: the app, for a new game (``/``) or an existing one (``/games/{id}``).

The template carries no inline script or style (a strict CSP comes later):
the page's data travels in ``data-`` attributes and everything else is fetched.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from app.deps import ServiceDep

HERE = Path(__file__).resolve().parents[1]
templates = Jinja2Templates(directory=HERE / "templates")
router = APIRouter(tags=["pages"])


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def index(request: Request, service: ServiceDep) -> HTMLResponse:
    return templates.TemplateResponse(request, "index.html", _context(service, None))


@router.get("/games/{game_id}", response_class=HTMLResponse, include_in_schema=False)
def game_page(game_id: str, request: Request, service: ServiceDep) -> HTMLResponse:
    found = service.store.get(game_id) is not None
    return templates.TemplateResponse(
        request,
        "index.html",
        _context(service, game_id if found else None, missing=None if found else game_id),
        status_code=200 if found else 404,
    )


def _context(service: ServiceDep, game_id: str | None, missing: str | None = None) -> dict:
    return {
        "game_id": game_id or "",
        "missing": missing or "",
        "stats_hz": service.settings.stats_hz,
    }
