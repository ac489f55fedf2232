"""Builds the FastAPI application (and nothing else): ``create_app(settings=None)``.

The lifespan owns the background machinery: it opens the game database,
warms the numba kernels in a daemon thread (so the first search does not
stall for a compile), runs a janitor that stops searches nobody watches and
unloads long-idle games, and on shutdown stops every search (at once, on
SIGTERM: see ``app.server``), then closes the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.analyses import AnalysisService
from app.arena_runner import ArenaRunner
from app.arenas import ArenaService
from app.limits import WindowLimiter
from app.logs import background_context
from app.middleware import HardeningMiddleware
from app.refusals import refusal
from app.routes import analyses as analysis_routes
from app.routes import api, inside, learning, pages, room, ws
from app.routes import arena as arena_routes
from app.service import GameService
from app.settings import Settings
from app.store import SqlStore
from app.warmup import Warmup, start_warmup
from engine.errors import CanopyError

HERE = Path(__file__).resolve().parent
log = logging.getLogger("canopy.app")

_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
}


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        db = await asyncio.to_thread(SqlStore, settings.db_url)
        log.info("game store: %s", db.describe())
        service = GameService(settings, db=db)
        app.state.service = service
        analyses = await asyncio.to_thread(AnalysisService, service)
        app.state.analyses = analyses
        arenas = await asyncio.to_thread(ArenaService, service)
        app.state.arenas = arenas
        runner = ArenaRunner(arenas)
        app.state.warm = not settings.warmup
        loop = asyncio.get_running_loop()

        def on_signal() -> None:  # called from the signal handler (app.server)
            # The handler runs inside whatever the loop was doing, maybe a request: the
            # callback gets a context of its own, not that request's ids.
            loop.call_soon_threadsafe(
                lambda: service.spawn(_stop_searches(service, "signal")),
                context=background_context(),
            )

        app.state.on_signal = on_signal
        if settings.warmup:

            def on_ready() -> None:
                app.state.warm = True

            app.state.warmup = start_warmup(on_ready)
        janitor = asyncio.create_task(_janitor(service, settings.janitor_s))
        await analyses.resume()
        await runner.resume()
        try:
            yield
        finally:
            janitor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await janitor
            await runner.close()
            await analyses.close()
            await _stop_searches(service, "shutdown")
            await service.close()
            log.info("shut down cleanly: searches stopped, database closed")

    app = FastAPI(
        title="Canopy",
        summary="Play chess and knight chess against MCTS and watch the search think.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.warmup = Warmup()  # ready: replaced by the running warm-up in the lifespan
    app.state.ws_open = 0
    app.state.create_limiter = WindowLimiter(settings.games_per_minute, 60.0)
    app.add_middleware(HardeningMiddleware, max_body=settings.http_max_body)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    app.include_router(pages.router)
    app.include_router(api.router)
    app.include_router(analysis_routes.router)
    app.include_router(arena_routes.router)
    app.include_router(inside.router)
    app.include_router(learning.router)
    app.include_router(room.router)
    app.include_router(ws.router)

    @app.exception_handler(CanopyError)
    async def canopy_error(request: Request, exc: CanopyError) -> JSONResponse:
        """A refused request, whichever route raised it (:func:`app.refusals.refusal`)."""
        return refusal(exc.code, str(exc), line=getattr(exc, "line", None))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        """Every HTTP error has the same body as the others: ``{"code", "message"}``."""
        code = _HTTP_CODES.get(exc.status_code, "error")
        message = exc.detail if isinstance(exc.detail, str) else code.replace("_", " ")
        return JSONResponse(
            {"code": code, "message": message},
            status_code=exc.status_code,
            headers=getattr(exc, "headers", None),
        )

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for err in exc.errors()[:3]:
            loc = [str(p) for p in err.get("loc", ()) if p not in ("body", "query", "path")]
            field = ".".join(loc) or "body"
            if err.get("type") == "missing":
                parts.append(f"field '{field}' is required")
            elif err.get("type") == "extra_forbidden":
                parts.append(f"unknown field '{field}'")
            else:
                parts.append(f"field '{field}': {err.get('msg')}")
        return JSONResponse(
            {"code": "bad_request", "message": "; ".join(parts) or "invalid request"},
            status_code=422,
        )

    return app


async def _stop_searches(service: GameService, why: str) -> None:
    count, ms = await service.stop_all_searches()
    if count or why == "signal":
        log.info("%s: stopped %d running searches in %.0f ms", why, count, ms)


async def _janitor(service: GameService, every: float = 5.0) -> None:
    while True:
        await asyncio.sleep(every)
        try:
            await service.housekeeping()
        except Exception:  # pragma: no cover - keep the janitor alive
            log.exception("housekeeping failed")
