"""Analyses of games played elsewhere: ``POST /api/analyses``, ``GET /api/analyses/{id}``,
the list, and the page with the form (``/analysis``).

Refusals carry ``{"error": {"code", "message"}}`` (``line`` too when a PGN is
refused), and, as every other route of the API, the same ``code`` and
``message`` at the top level.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.templating import Jinja2Templates
from pydantic import ValidationError

from app.analyses import AnalysisService
from app.limits import client_address
from app.refusals import refusal
from app.schemas import AnalysisRequest, describe_validation_error

HERE = Path(__file__).resolve().parents[1]
templates = Jinja2Templates(directory=HERE / "templates")
router = APIRouter(tags=["analyses"])


async def get_analyses(request: Request) -> AnalysisService:
    analyses: AnalysisService = request.app.state.analyses
    return analyses


AnalysesDep = Annotated[AnalysisService, Depends(get_analyses)]


@router.post("/api/analyses", status_code=201)
async def create_analysis(request: Request, analyses: AnalysesDep) -> Any:
    """Analyse a game: ``{"pgn", "algorithm"?, "params"?, "movetime_ms"?}`` → ``{"id", "url"}``.

    The PGN's first game is read (its main line; comments, variations and NAGs are
    skipped); a FEN tag, or a FEN line before the moves, sets the start position and
    ``[Variant "Knight Chess"]`` the game. Each position is then searched for
    ``movetime_ms`` in the background; ``GET /api/analyses/{id}`` tells the progress.
    Nothing is stored when the request is refused.
    """
    if not request.app.state.create_limiter.allow(client_address(request)):
        return refusal("rate_limited", "too many new games and analyses from this address; wait")
    try:
        raw = json.loads(await request.body())
    except ValueError:
        return refusal(
            "bad_request", 'the body must be JSON: {"pgn": ..., "algorithm"?, "movetime_ms"?}'
        )
    try:
        body = AnalysisRequest.model_validate(raw)
    except ValidationError as exc:
        return refusal("bad_request", describe_validation_error(exc, skip_first=False), status=422)
    aid = await analyses.create(body)
    return JSONResponse({"id": aid, "url": f"/games/{aid}"}, status_code=201)


@router.get("/api/analyses")
async def list_analyses(
    analyses: AnalysesDep, limit: int = Query(50, ge=1, le=500)
) -> dict[str, Any]:
    """The newest analyses on this server (newest first) and the limits a request meets."""
    return {"analyses": await analyses.recent(limit), "limits": analyses.limits()}


@router.get("/api/analyses/{analysis_id}")
async def get_analysis(
    analysis_id: str,
    analyses: AnalysesDep,
    first: int = Query(1, alias="from", ge=1, description="the first ply to send (1: all)"),
) -> Any:
    """Progress (``status``, ``done`` of ``total`` positions), then every ply in the shape of
    a game review with ``mark``, ``best`` and ``loss``; ``summary`` counts the marks per side."""
    return await analyses.get(analysis_id, first)


@router.get("/analysis", response_class=HTMLResponse, include_in_schema=False)
async def analysis_page(request: Request, analyses: AnalysesDep) -> HTMLResponse:
    """The form: paste or upload a PGN, choose the search; the recent analyses below it."""
    limits = analyses.limits()
    context = {
        "limits": limits,
        "limits_json": json.dumps(limits),
        "analyses": await analyses.recent(30),
    }
    return templates.TemplateResponse(request, "analysis.html", context)
