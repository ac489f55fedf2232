"""The class arena's routes: the API (``/api/arenas``), its websocket and its pages.

Refusals carry ``{"error": {"code", "message"}}`` and, as every other route of
the API, the same ``code`` and ``message`` at the top level; nothing changes
when a request is refused. The websocket ``/ws/arenas/{id}`` is read-only: it
sends ``{"type": "arena", ...the GET body}`` at once and after every change.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.templating import Jinja2Templates
from pydantic import BaseModel, ValidationError

from app.arena_export import arena_csv, arena_pgn
from app.arena_schemas import CreateArena, EditBot, JoinBot
from app.arenas import ArenaService
from app.limits import client_address
from app.refusals import refusal
from app.schemas import describe_validation_error
from app.streaming import dumps
from engine.errors import CanopyError

HERE = Path(__file__).resolve().parents[1]
templates = Jinja2Templates(directory=HERE / "templates")
router = APIRouter(tags=["arena"])

CLOSE_NOT_FOUND = 4404
M = TypeVar("M", bound=BaseModel)


async def get_arenas(request: Request) -> ArenaService:
    arenas: ArenaService = request.app.state.arenas
    return arenas


ArenasDep = Annotated[ArenaService, Depends(get_arenas)]


async def _body(request: Request, model: type[M]) -> M | JSONResponse:
    try:
        raw = json.loads(await request.body() or b"{}")
    except ValueError:
        return refusal("bad_request", "the body must be a JSON object")
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        return refusal("bad_request", describe_validation_error(exc, skip_first=False), status=422)


def _limited(request: Request) -> JSONResponse | None:
    if request.app.state.create_limiter.allow(client_address(request)):
        return None
    return refusal("rate_limited", "too many new games, arenas and bots from this address; wait")


@router.post("/api/arenas", status_code=201)
async def create_arena(request: Request, arenas: ArenasDep) -> Any:
    """Open an arena: ``{"game", "movetime_ms" | "iterations", "algorithms"?, "free"?,
    "format"?, "rounds"?, "max_plies"?, "name"?}`` → ``{"id", "token", "url", "projector"}``;
    ``token`` is the teacher's (start, pause, end, remove any bot)."""
    if (limited := _limited(request)) is not None:
        return limited
    body = await _body(request, CreateArena)
    if isinstance(body, JSONResponse):
        return body
    aid, token = await arenas.create(body)
    return JSONResponse(
        {"id": aid, "token": token, "url": f"/arena/{aid}", "projector": f"/arena/{aid}/projector"},
        status_code=201,
    )


@router.get("/api/arenas/{arena_id}")
async def get_arena(arena_id: str, arenas: ArenasDep) -> Any:
    """The arena: rules, state, bots, standings, games, crosstable, what won."""
    return await arenas.view(arena_id)


@router.post("/api/arenas/{arena_id}/bots", status_code=201)
async def join_arena(arena_id: str, request: Request, arenas: ArenasDep) -> Any:
    """A student's bot: ``{"name", "algorithm", "params"?}`` → ``{"bot_id", "bot_token"}``."""
    if (limited := _limited(request)) is not None:
        return limited
    body = await _body(request, JoinBot)
    if isinstance(body, JSONResponse):
        return body
    bid, token = await arenas.join(arena_id, body, client_address(request))
    return JSONResponse({"bot_id": bid, "bot_token": token}, status_code=201)


@router.patch("/api/arenas/{arena_id}/bots/{bot_id}")
async def edit_bot(
    arena_id: str, bot_id: str, request: Request, arenas: ArenasDep, bot_token: str | None = None
) -> Any:
    """The bot's owner changes its name, algorithm or parameters before the start."""
    body = await _body(request, EditBot)
    if isinstance(body, JSONResponse):
        return body
    await arenas.edit(arena_id, bot_id, body, bot_token)
    return await arenas.view(arena_id)


@router.delete("/api/arenas/{arena_id}/bots/{bot_id}")
async def remove_bot(
    arena_id: str,
    bot_id: str,
    arenas: ArenasDep,
    token: str | None = None,
    bot_token: str | None = None,
) -> Any:
    """The teacher removes a bot (after the start its remaining games are not played), or
    its owner before the start."""
    await arenas.remove(arena_id, bot_id, token, bot_token)
    return await arenas.view(arena_id)


@router.post("/api/arenas/{arena_id}/{action}")
async def teacher_action(
    arena_id: str, action: str, arenas: ArenasDep, token: str | None = None
) -> Any:
    """``start`` (or go on after a pause), ``pause``, ``end``: the teacher's token only."""
    actions = {"start": arenas.start, "pause": arenas.pause, "end": arenas.end}
    act = actions.get(action)
    if act is None:
        return refusal("not_found", f"no arena action {action[:20]!r}; start, pause or end")
    await act(arena_id, token)
    return await arenas.view(arena_id)


@router.get("/api/arenas/{arena_id}/crosstable.csv")
async def crosstable_file(arena_id: str, arenas: ArenasDep) -> Response:
    record = await arenas.record(arena_id)
    text = await asyncio.to_thread(arena_csv, record)
    return Response(
        text,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="arena-{record.id}.csv"'},
    )


@router.get("/api/arenas/{arena_id}/pgn")
async def games_file(arena_id: str, arenas: ArenasDep) -> Response:
    """Every finished game as PGN (``White``/``Black`` the bots, ``WhiteEngine``/
    ``BlackEngine`` their settings, ``Event`` the arena, ``Round``)."""
    record = await arenas.record(arena_id)
    db = arenas.db
    sessions = {}
    for g in record.games:
        if g.status == "done" and g.black is not None:
            stored = await db.run(db.load, g.game_id)
            if stored is not None:
                sessions[g.game_id] = stored.session
    text = await asyncio.to_thread(arena_pgn, record, sessions)
    return Response(
        text,
        media_type="application/x-chess-pgn",
        headers={"Content-Disposition": f'attachment; filename="arena-{record.id}.pgn"'},
    )


@router.websocket("/ws/arenas/{arena_id}")
async def arena_socket(websocket: WebSocket, arena_id: str) -> None:
    """Read-only: the arena frame at once and after every change (at most 4 a second)."""
    arenas: ArenaService = websocket.app.state.arenas
    await websocket.accept()
    try:
        first = await arenas.frame(arena_id)
    except CanopyError as exc:
        with contextlib.suppress(Exception):
            await websocket.send_text(
                dumps({"type": "error", "code": exc.code, "message": str(exc)})
            )
            await websocket.close(code=CLOSE_NOT_FOUND if exc.code == "not_found" else 1013)
        return
    watcher = arenas.watch(arena_id)
    watcher.put(first)

    async def send() -> None:
        while True:
            await websocket.send_text(await watcher.next())

    sender = asyncio.create_task(send())
    try:
        while True:  # anything the client sends is ignored: the socket is read-only
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
    except WebSocketDisconnect:
        pass
    finally:
        arenas.unwatch(arena_id, watcher)
        sender.cancel()
        with contextlib.suppress(BaseException):
            await sender


@router.get("/arena/new", response_class=HTMLResponse, include_in_schema=False)
async def new_arena_page(request: Request) -> HTMLResponse:
    """The teacher's form: game, think time, algorithms and free parameters, format
    (declared before ``/arena/{arena_id}`` so "new" is never read as an id)."""
    return templates.TemplateResponse(request, "arena-new.html", {})


@router.get("/arena/{arena_id}", response_class=HTMLResponse, include_in_schema=False)
async def arena_page(arena_id: str, request: Request, arenas: ArenasDep) -> HTMLResponse:
    """Students join here; the teacher (token in the page's storage) runs the arena."""
    return await _page(arena_id, request, arenas, "arena.html")


@router.get("/arena/{arena_id}/projector", response_class=HTMLResponse, include_in_schema=False)
async def arena_projector(arena_id: str, request: Request, arenas: ArenasDep) -> HTMLResponse:
    """Large type for the room: standings, crosstable, the game being played, what won."""
    return await _page(arena_id, request, arenas, "arena-projector.html")


async def _page(arena_id: str, request: Request, arenas: ArenaService, name: str) -> HTMLResponse:
    try:
        record = await arenas.record(arena_id)
    except CanopyError:
        record = None
    context = {
        "arena_id": record.id if record else "",
        "arena_name": record.name if record else "",
        "game": record.game if record else "",
        "missing": "" if record else arena_id[:40],
    }
    return templates.TemplateResponse(request, name, context, status_code=200 if record else 404)
