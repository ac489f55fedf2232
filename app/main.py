"""Builds the FastAPI application (and nothing else): ``create_app(settings=None)``.

The lifespan owns the background machinery: it warms the numba kernels in a
daemon thread (so the first search does not stall for a compile), runs a
janitor that drops long-idle games, and on shutdown stops every search.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import AsyncIterator
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles

from app.games import ControllerFactory, GameService
from app.routes import api, pages, ws
from app.settings import Settings
from engine.errors import CanopyError

HERE = Path(__file__).resolve().parent
log = logging.getLogger("canopy.app")

_STATUS = {"not_found": 404, "too_many_games": 503}


def create_app(
    settings: Settings | None = None, *, controller_factory: ControllerFactory | None = None
) -> FastAPI:
    settings = settings or Settings()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        service = GameService(settings, controller_factory=controller_factory)
        app.state.service = service
        app.state.warm = not settings.warmup
        if settings.warmup:
            _start_warmup(app)
        janitor = asyncio.create_task(_janitor(service))
        try:
            yield
        finally:
            janitor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await janitor
            await service.close()

    app = FastAPI(
        title="Canopy",
        summary="Play chess and knight chess against MCTS and watch the search think.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    app.include_router(pages.router)
    app.include_router(api.router)
    app.include_router(ws.router)

    @app.exception_handler(CanopyError)
    async def canopy_error(request: Request, exc: CanopyError) -> JSONResponse:
        return JSONResponse(
            {"code": exc.code, "message": str(exc)}, status_code=_STATUS.get(exc.code, 400)
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


def _start_warmup(app: FastAPI) -> None:
    """Compile the search kernels of both games in a daemon thread (never blocks startup)."""

    def warm() -> None:
        try:
            from engine.warm import warm as warm_kernels

            seconds = warm_kernels()
            log.info("search kernels ready in %.1f s", seconds)
        except Exception:  # a failed warm-up only costs the first search a compile
            log.exception("warming the search kernels failed")
        finally:
            app.state.warm = True

    threading.Thread(target=warm, name="canopy-warmup", daemon=True).start()


async def _janitor(service: GameService, every: float = 60.0) -> None:
    while True:
        await asyncio.sleep(every)
        try:
            await service.evict_idle()
        except Exception:  # pragma: no cover - keep the janitor alive
            log.exception("evicting idle games failed")
