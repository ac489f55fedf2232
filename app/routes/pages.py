"""HTML pages: the app (``/``, ``/games/{id}``), the projector view, the recent games.

The templates carry no inline script or style (the Content-Security-Policy
forbids both): the page's data travels in ``data-`` attributes, everything
else is fetched, and every user-supplied string (game names, FENs, ids) goes
through Jinja's autoescaping.
"""

from __future__ import annotations

import datetime as dt
from functools import partial
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from app.deps import ServiceDep
from app.errors import GameNotFoundError
from app.store import RESULT_FILTERS, GameSummary

HERE = Path(__file__).resolve().parents[1]
templates = Jinja2Templates(directory=HERE / "templates")
router = APIRouter(tags=["pages"])


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def index(request: Request, service: ServiceDep) -> HTMLResponse:
    return templates.TemplateResponse(request, "index.html", _context(service, None))


#: Games the recent-games page lists, and how many it reads to filter them by text.
LISTED = 100
SEARCHED = 1000


@router.get("/games", response_class=HTMLResponse, include_in_schema=False)
async def recent_games(
    request: Request,
    service: ServiceDep,
    kind: str = "",
    result: str = "",
    q: Annotated[str, Query(max_length=80)] = "",
) -> HTMLResponse:
    """The most recently played games — who played whom, the result, the opening, the date —
    with links to play on (creator) or watch, filtered by kind, result and text (a filter
    value the page does not offer filters nothing)."""
    kind = kind if kind in ("chess", "knight") else ""
    result = result if result in RESULT_FILTERS else ""
    text = q.strip().casefold()
    recent = partial(service.db.recent, game=kind or None, result=result or None)
    games = await service.db.run(recent, SEARCHED if text else LISTED)
    now = dt.datetime.now(dt.UTC)
    rows = [_row(g, now) for g in games]
    if text:
        rows = [r for r in rows if text in r["search"]][:LISTED]
    filters = {"kind": kind, "result": result, "q": q}
    return templates.TemplateResponse(
        request,
        "games.html",
        {"games": rows, "filters": filters, "filtered": any(filters.values())},
    )


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
    # An analysis of a game played elsewhere opens in the same view, with its marks.
    context["analysis"] = found and await request.app.state.analyses.is_analysis(game_id)
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
        "analysis": False,
    }


def _side(game: str, color: str) -> str:
    if game == "knight":
        return "Black knights" if color == "white" else "Pink knights"
    return color.capitalize()


def _players(g: GameSummary) -> str:
    """Who played whom: "player (White) vs Canopy · mcts (Black)", or an arena's bots
    "Ada (uct c=0.7) vs Bob (uct)" (the page's script says "you" in the browser that holds
    the game's token)."""
    if g.players:  # two named engines (an arena's bots), White first
        return " vs ".join(g.players)
    engine = f"Canopy · {g.algorithm}" if g.algorithm else "Canopy"
    if g.human == "none":
        return f"{engine} vs itself"
    if g.human == "both":
        return f"player (both sides), {engine} analyses"
    other = "black" if g.human == "white" else "white"
    first, second = (("player", g.human), (engine, other))
    if g.human == "black":
        first, second = second, first
    return f"{first[0]} ({_side(g.game, first[1])}) vs {second[0]} ({_side(g.game, second[1])})"


def _result(g: GameSummary) -> str:
    if g.result is None:
        return "in progress"
    if g.result == "1/2-1/2":
        return "draw"
    winner = _side(g.game, "white" if g.result == "1-0" else "black")
    return f"{g.result} {winner} {'win' if g.game == 'knight' else 'wins'}"


def _opening(g: GameSummary) -> str:
    """The first moves with their numbers ("1.e4 e5 2.Nf3"), from the start FEN's number."""
    fields = (g.start_fen or "w - - 0 1").split()
    black = len(fields) > 1 and fields[1] == "b"
    try:
        number = int(fields[5]) if len(fields) > 5 else 1
    except ValueError:
        number = 1
    words = []
    for i, san in enumerate(g.opening):
        white_to_move = (i % 2 == 0) != black
        if white_to_move:
            words.append(f"{number}.{san}")
        else:
            words.append(f"{number}…{san}" if i == 0 else san)
            number += 1
    return " ".join(words)


def _row(g: GameSummary, now: dt.datetime) -> dict[str, Any]:
    row = {
        **g.to_dict(),
        "kind": "Knight chess" if g.game == "knight" else "Chess",
        "players": _players(g),
        "result_text": _result(g),
        "opening_text": _opening(g),
        "date": g.created_at.strftime("%Y-%m-%d %H:%M UTC"),
        "ago": _ago(now - g.updated_at),
    }
    row["search"] = " ".join(
        str(row[k] or "")
        for k in ("name", "id", "kind", "algorithm", "players", "result_text", "opening_text")
    ).casefold()
    return row


def _ago(delta: dt.timedelta) -> str:
    seconds = max(0, int(delta.total_seconds()))
    if seconds < 60:
        return "just now"
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = seconds // size
            return f"{n} {unit}{'s' if n != 1 else ''} ago"
    return "just now"  # pragma: no cover
