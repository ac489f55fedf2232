"""The websocket of a game: ``/ws/games/{id}?token=T`` (protocol in docs/protocol.md).

One task receives and handles the client's frames in order; another sends
from the connection's outbox, so a slow client only ever delays itself and,
because the outbox keeps the latest stats only, never builds a backlog.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import ValidationError
from starlette.websockets import WebSocketState

from app import handlers
from app.connection import Connection
from app.errors import GameNotFoundError
from app.limits import TokenBucket
from app.live import LiveGame
from app.logs import game_id_var
from app.schemas import CLIENT_TYPES, READ_ONLY_TYPES, client_frame, describe_validation_error
from app.streaming import Outbox, dumps
from engine.errors import CanopyError

log = logging.getLogger("canopy.ws")
router = APIRouter()

CLOSE_NOT_FOUND = 4404  # application close code: no such game
CLOSE_TOO_BIG = 1009  # RFC 6455 "message too big"
CLOSE_RESTART = 1012  # RFC 6455 "service restart": reconnect and you will find the game
CLOSE_TRY_LATER = 1013  # RFC 6455 "try again later": the server is full or restarting


def error_frame(code: str, message: str, request: str | None = None) -> str:
    frame: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if request is not None:
        frame["request"] = request
    return dumps(frame)


@router.websocket("/ws/games/{game_id}")
async def game_socket(websocket: WebSocket, game_id: str, token: str | None = None) -> None:
    service = websocket.app.state.service
    settings = service.settings
    state = websocket.app.state
    id_token = game_id_var.set(game_id[:40])
    try:
        await websocket.accept()
        if state.ws_open >= settings.max_connections:
            await _refuse(websocket, "too_many_connections", "the server is full; try again later")
            return
        try:
            game: LiveGame = await service.load(game_id)
        except GameNotFoundError:
            await _refuse(
                websocket, "not_found", f"no game with id {game_id[:40]!r}", CLOSE_NOT_FOUND
            )
            return
        except CanopyError as exc:  # too many games open, the database down, shutting down
            await _refuse(websocket, exc.code, str(exc))
            return
        state.ws_open += 1
        try:
            await _serve(websocket, service, game, token)
        finally:
            state.ws_open -= 1
    finally:
        game_id_var.reset(id_token)  # like the request id (middleware): not past the socket


async def _refuse(
    websocket: WebSocket, code: str, message: str, close: int = CLOSE_TRY_LATER
) -> None:
    with contextlib.suppress(Exception):
        await websocket.send_text(error_frame(code, message))
        await websocket.close(code=close)


async def _serve(websocket: WebSocket, service: Any, game: LiveGame, token: str | None) -> None:
    settings = service.settings
    role = "player" if service.check_token(game, token) else "spectator"
    bucket = TokenBucket(settings.ws_rate, settings.ws_burst)
    outbox = Outbox(hz=settings.stats_hz, tree=True, max_bytes=settings.ws_max_frame)
    conn = Connection(role, outbox)
    game.attach(conn)
    sender = asyncio.create_task(_send_loop(websocket, outbox))
    close_code: int | None = None
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            text, data = message.get("text"), message.get("bytes")
            size = len(text.encode()) if text is not None else len(data or b"")
            if size > settings.ws_max_frame:
                close_code = CLOSE_TOO_BIG
                break
            if not bucket.allow():  # answered and dropped; the socket stays open
                outbox.put_reply(
                    error_frame(
                        "rate_limited",
                        f"more than {settings.ws_rate:g} messages a second; this one was dropped",
                    )
                )
                continue
            if text is None:
                outbox.put_reply(error_frame("bad_json", "send JSON as text frames, not binary"))
                continue
            await dispatch(game, conn, text)
    except WebSocketDisconnect:
        pass
    finally:
        game.detach(conn)
        outbox.close()
        sender.cancel()
        with contextlib.suppress(BaseException):
            await sender
        if close_code is not None and websocket.client_state == WebSocketState.CONNECTED:
            with contextlib.suppress(Exception):
                await websocket.close(code=close_code, reason="frame too large")


async def _send_loop(websocket: WebSocket, outbox: Outbox) -> None:
    try:
        while (text := await outbox.next()) is not None:
            await websocket.send_text(text)
    except (WebSocketDisconnect, RuntimeError, ConnectionError):
        outbox.close()  # the client went away; the receive side notices too
        return
    # The game was closed under this socket (unloaded after a conflict, or the server is
    # stopping): end the socket too, so the page reconnects and finds the stored game.
    if websocket.application_state == WebSocketState.CONNECTED:
        with contextlib.suppress(Exception):
            await websocket.close(code=CLOSE_RESTART, reason="game reloaded")


def _no_constant(name: str) -> Any:
    """``NaN`` and ``Infinity`` are not JSON (Python's parser accepts them by default)."""
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text[:20]} is out of range")
    return value


async def dispatch(game: LiveGame, conn: Connection, text: str) -> None:
    """Parse, check and carry out one frame; every refusal becomes an ``error`` frame."""
    reply = conn.outbox.put_reply
    try:
        raw = json.loads(text, parse_constant=_no_constant, parse_float=_finite_float)
    except (json.JSONDecodeError, RecursionError, ValueError) as exc:
        msg = (
            exc.msg
            if isinstance(exc, json.JSONDecodeError)
            else "nested too deeply"
            if isinstance(exc, RecursionError)
            else str(exc)
        )
        reply(error_frame("bad_json", f"malformed JSON: {msg}"))
        return
    if not isinstance(raw, dict):
        reply(error_frame("bad_request", "a frame is a JSON object with a 'type' field"))
        return
    kind = raw.get("type")
    if kind is None:
        reply(error_frame("bad_request", "field 'type' is required"))
        return
    if not isinstance(kind, str):
        reply(error_frame("bad_request", "field 'type' must be a string"))
        return
    if kind not in CLIENT_TYPES:
        known = ", ".join(sorted(CLIENT_TYPES))
        reply(error_frame("unknown_type", f"unknown frame type {kind!r}; expected one of: {known}"))
        return
    if kind not in READ_ONLY_TYPES and not conn.is_player:
        reply(
            error_frame(
                "forbidden",
                f"'{kind}' changes the game: this connection has no valid token (read-only)",
                kind,
            )
        )
        return
    try:
        frame = client_frame.validate_python(raw)
    except ValidationError as exc:
        reply(error_frame("bad_request", describe_validation_error(exc), kind))
        return
    try:
        await handlers.handle(game, conn, frame)
    except CanopyError as exc:
        reply(error_frame(exc.code, str(exc), kind))
    except Exception:
        log.exception("game %s: %s frame failed", game.id, kind)
        reply(error_frame("internal", f"the server failed to carry out '{kind}'", kind))
