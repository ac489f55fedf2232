"""Exports of what the search did: the tree (top N nodes with stats) and the step log.

Both are plain JSON documents (format in docs/protocol.md, "Exports"), served
inline or, with ``download=1``, as a file the browser saves. They read the
same numbers the websocket streams, so a script can check a lesson's
figures or feed the tree to its own plotting.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fastapi import APIRouter, Query, Response

from app.deps import ServiceDep
from app.inside import MAX_EXPORT_NODES, export_tree

router = APIRouter(prefix="/api", tags=["inside the search"])


def _json(body: dict[str, Any], *, download: bool, filename: str) -> Response:
    disposition = "attachment" if download else "inline"
    return Response(
        json.dumps(body, separators=(",", ":"), allow_nan=False),
        media_type="application/json",
        headers={"Content-Disposition": f'{disposition}; filename="{filename}"'},
    )


@router.get("/games/{game_id}/tree")
async def get_tree(
    game_id: str,
    service: ServiceDep,
    nodes: int = Query(500, ge=1, le=MAX_EXPORT_NODES, description="most visited nodes to export"),
    download: bool = Query(False, description="send as an attachment (a file download)"),
) -> Response:
    """The search tree of the game's current position: the top ``nodes`` nodes with every
    statistic (``format: canopy-tree``). Empty before the first search of the position."""
    game = service.get(game_id)
    async with game.lock:
        controller = game.controller
        if controller is None:
            body: dict[str, Any] = {
                "format": "canopy-tree",
                "version": 1,
                "game_id": game.id,
                "game": game.session.game.name,
                "root_fen": game.session.fen,
                "iterations": 0,
                "tree_nodes": 0,
                "exported": 0,
                "root_visits": 0,
                "nodes": [],
            }
        else:
            body = await asyncio.to_thread(
                export_tree,
                controller,
                nodes,
                game_id=game.id,
                game=game.session.game.name,
            )
    return _json(body, download=download, filename=f"canopy-{game_id}-tree.json")


@router.get("/games/{game_id}/steps")
def get_steps(
    game_id: str,
    service: ServiceDep,
    download: bool = Query(False, description="send as an attachment (a file download)"),
) -> Response:
    """The step traces of this game, oldest first (``format: canopy-steps``): every
    ``step`` frame's content, with the position it was taken in."""
    game = service.get(game_id)
    steps = list(game.step_log)
    body = {
        "format": "canopy-steps",
        "version": 1,
        "game_id": game.id,
        "game": game.session.game.name,
        "count": len(steps),
        "steps": steps,
    }
    return _json(body, download=download, filename=f"canopy-{game_id}-steps.json")
