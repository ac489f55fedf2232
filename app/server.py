"""Running the app under uvicorn with Canopy's settings (``canopy serve`` calls ``serve``).

``ws_max_size`` makes uvicorn itself refuse frames over ``CANOPY_WS_MAX_FRAME``
with close code 1009 before they are even buffered; the websocket route checks
the size again, so the rule also holds under other servers and in tests.

SIGTERM/SIGINT: uvicorn's own handling stops accepting connections, closes
the websockets (1012, "service restart") and then runs the lifespan's
shutdown. That can take a while with many sockets open, so
:class:`CanopyServer` also tells the app at the moment the signal arrives,
and the app stops every search right away (within milliseconds) instead of
after the connections have drained. Moves are already durable when they are
acknowledged, so there is nothing else to flush but the SQLite WAL, which
the shutdown folds into the database file.
"""

from __future__ import annotations

import faulthandler
import logging
import signal
import socket
import sys
from collections.abc import Callable
from types import FrameType

import uvicorn
from fastapi import FastAPI

from app.logs import configure_logging
from app.main import create_app
from app.settings import Settings

log = logging.getLogger("canopy.server")


class CanopyServer(uvicorn.Server):
    def __init__(
        self, config: uvicorn.Config, app: FastAPI, on_started: Callable[[], None] | None = None
    ) -> None:
        super().__init__(config)
        self.fastapi_app = app
        self.on_started = on_started

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        """Once listening, ``on_started`` runs (``canopy serve`` prints the room's links)."""
        await super().startup(sockets)
        if self.started and self.on_started is not None:
            self.on_started()

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        hook = getattr(self.fastapi_app.state, "on_signal", None)
        if hook is not None and not self.should_exit:
            try:
                hook()
            except Exception:  # pragma: no cover - never let the handler fail
                log.exception("stopping the searches on signal %s failed", sig)
        super().handle_exit(sig, frame)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """A graceful shutdown on SIGTERM is a clean exit: status 0.

        uvicorn re-raises the signal it caught once it is done (so the process
        would end *killed by SIGTERM*, status 143); after a complete, orderly
        shutdown there is nothing to report, so that is skipped.
        """
        await super().shutdown(sockets)
        if not self.force_exit:
            captured = getattr(self, "_captured_signals", None)
            if isinstance(captured, list):
                captured.clear()


def dump_stacks_on_signal() -> None:
    """``kill -USR1 <pid>`` writes every thread's Python stack to stderr: a server that
    hangs (a request never answered, a search that never stops) can then say where, without
    being stopped or restarted. The browser tests ask for it when a page waits in vain."""
    if hasattr(signal, "SIGUSR1"):  # not on Windows
        faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=True)


def serve(
    host: str | None = None,
    port: int | None = None,
    settings: Settings | None = None,
    on_started: Callable[[], None] | None = None,
) -> None:
    """Serve until a signal; ``on_started()`` runs once the socket listens."""
    settings = settings or Settings()
    log_file = settings.data_dir / settings.log_file if settings.log_file else None
    configure_logging(settings.log_format, settings.log_level, log_file)
    dump_stacks_on_signal()
    app = create_app(settings)
    host = host or settings.host
    port = port or settings.port
    app.state.bind = (host, port)  # GET /api/room: the links students can open
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        ws_max_size=settings.ws_max_frame,
        ws_per_message_deflate=settings.ws_deflate,
        log_config=None,  # configure_logging did it: JSON lines, tokens redacted
        log_level=settings.log_level,
        timeout_graceful_shutdown=int(settings.shutdown_grace_s) or None,
    )
    CanopyServer(config, app, on_started).run()
