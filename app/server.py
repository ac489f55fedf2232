"""Running the app under uvicorn with Canopy's settings (``canopy serve`` calls ``serve``).

``ws_max_size`` makes uvicorn itself refuse frames over ``CANOPY_WS_MAX_FRAME``
with close code 1009 before they are even buffered; the websocket route checks
the size again, so the rule also holds under other servers and in tests.
"""

from __future__ import annotations

import uvicorn

from app.main import create_app
from app.settings import Settings


def serve(
    host: str | None = None, port: int | None = None, settings: Settings | None = None
) -> None:
    settings = settings or Settings()
    uvicorn.run(
        create_app(settings),
        host=host or settings.host,
        port=port or settings.port,
        ws_max_size=settings.ws_max_frame,
        log_level="info",
    )
