"""What a class in a room needs from the server: the links students type, the warm-up.

``GET /api/room``: the links to this server that work from other machines (see
:mod:`app.lan`), so the Share dialog of a teacher whose page is on ``localhost`` can show
a link and QR code a phone can open. ``GET /api/warmup``: how far the kernels' warm-up
is (:mod:`app.warmup`), which the page shows as "warming up the engine…".
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from app.lan import room_urls
from app.warmup import Warmup

router = APIRouter(prefix="/api", tags=["api"])


@router.get("/room")
def room(request: Request) -> dict[str, Any]:
    """``urls``: links for other machines (empty when bound to loopback or not known);
    ``bind``: the host the server listens on, when ``canopy serve`` started it."""
    bind = getattr(request.app.state, "bind", None)
    if bind is None:
        return {"urls": [], "bind": None}
    host, port = bind
    return {"urls": room_urls(host, port), "bind": host}


@router.get("/warmup")
def warmup(request: Request) -> dict[str, Any]:
    """``{"ready", "done", "total", "label", "elapsed_s", "failed"}``."""
    status: Warmup = getattr(request.app.state, "warmup", None) or Warmup()
    return status.to_dict()
