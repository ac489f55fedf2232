"""The learned evaluation in the app: the Learning page, its data, and side-by-side evaluations.

* ``GET /learning?game=chess|knight`` — the page: the learning curve of the game's active
  weights and what they learned (knight chess: a heat map of a knight's value on each
  square; chess: each hand feature's weight, hand against learned) — or, without weights,
  why it has none and how to train one's own; its data comes from
* ``GET /api/learning?game=chess|knight`` — :func:`engine.learn.report.learning_report`;
* ``POST /api/evaluations`` — a position's hand and learned static evaluations, and those
  of some of its moves (:func:`engine.eval.compare.static_evaluations`), for the
  node card's and the Moves table's "hand · learned" toggle.

All computation is in ``engine/``; this module validates, picks the weights and routes.
The weights come through the :func:`learned_weights` dependency (the weights the engine
loaded: the shipped file or ``$CANOPY_LEARNED_WEIGHTS``), which tests override.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from app.schemas import Evaluations, EvaluationsRequest
from engine.eval.compare import static_evaluations
from engine.eval.learned_weights import AnyWeights, shipped
from engine.learn.report import learning_report

HERE = Path(__file__).resolve().parents[1]
templates = Jinja2Templates(directory=HERE / "templates")
router = APIRouter(tags=["learning"])

Loaded = tuple[AnyWeights | None, str]


async def learned_weights() -> dict[str, Loaded]:
    """Each game's learned weights as the engine loaded them (``(None, why)`` without)."""
    return {game: shipped(game) for game in ("chess", "knight")}


LearnedDep = Annotated[dict[str, Loaded], Depends(learned_weights)]


@router.get("/learning", response_class=HTMLResponse, include_in_schema=False)
def learning_page(request: Request) -> HTMLResponse:
    return templates.TemplateResponse(request, "learning.html", {})


@router.get("/api/learning")
def learning(learned: LearnedDep, game: Literal["chess", "knight"] = "knight") -> dict[str, Any]:
    """The active learned weights of ``game``: training command, learning curve (each
    generation's Elo against the hand evaluation with its 95 % interval), what they learned
    (knight chess: the value of a knight on each square; chess: each feature's weight); or
    ``available: false`` with the reason and how to train."""
    weights, why = learned[game]
    return learning_report(game, weights, why)


@router.post("/api/evaluations", response_model=Evaluations)
async def evaluations(body: EvaluationsRequest, learned: LearnedDep) -> Any:
    """The hand and learned static evaluations of ``fen`` and of each of ``moves``, every
    number for the side to move in ``fen``; 400 for a bad FEN or an illegal move."""
    weights, why = learned[body.game]
    both = await asyncio.to_thread(static_evaluations, body.game, body.fen, body.moves, weights)
    return {
        "game": body.game,
        "fen": body.fen,
        "learned": weights is not None,
        "message": None if weights is not None else why,
        "position": {"hand": both.position.hand, "learned": both.position.learned},
        "moves": [{"uci": u, "hand": p.hand, "learned": p.learned} for u, p in both.moves],
    }
