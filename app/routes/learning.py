"""The learned evaluation in the app: the Learning page, its data, and side-by-side evaluations.

* ``GET /learning?game=chess|knight`` — the page: the learning curve of the game's active
  weights and what they learned (knight chess: a heat map of a knight's value on each
  square; chess: each hand feature's weight, hand against learned) — or, without weights,
  why it has none and how to train one's own; its data comes from
* ``GET /api/learning?game=chess|knight`` — :func:`engine.learn.report.learning_report`;
* ``POST /api/evaluations`` — a position's hand, learned and (chess) NNUE static
  evaluations, and those of some of its moves
  (:func:`engine.eval.compare.static_evaluations`), for the node card's and the Moves
  table's "hand · learned · nnue" toggle;
* ``GET /api/learning/nnue/position?fen=`` — what the NNUE adds over the hand evaluation in
  a chess position, piece by piece (:func:`engine.learn.contributions.what_it_adds`).

All computation is in ``engine/``; this module validates, picks the weights and routes.
The weights come through the :func:`learned_weights` and :func:`nnue_weights`
dependencies (the weights the engine loaded: the shipped files or
``$CANOPY_LEARNED_WEIGHTS`` and ``$CANOPY_NNUE_WEIGHTS``), which tests override.
"""

from __future__ import annotations

import asyncio
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from app.schemas import Evaluations, EvaluationsRequest, NNUEPosition
from engine.eval import nnue_weights as nnue_file
from engine.eval.compare import static_evaluations
from engine.eval.learned_weights import AnyWeights, shipped
from engine.eval.nnue_weights import NNUEWeights
from engine.learn.contributions import what_it_adds
from engine.learn.report import learning_report, nnue_report

HERE = Path(__file__).resolve().parents[1]
templates = Jinja2Templates(directory=HERE / "templates")
router = APIRouter(tags=["learning"])

Loaded = tuple[AnyWeights | None, str]


async def learned_weights() -> dict[str, Loaded]:
    """Each game's learned weights as the engine loaded them (``(None, why)`` without)."""
    return {game: shipped(game) for game in ("chess", "knight")}


LearnedDep = Annotated[dict[str, Loaded], Depends(learned_weights)]
LoadedNNUE = tuple[NNUEWeights | None, str]
#: Why knight chess has no NNUE number.
CHESS_ONLY = "the NNUE evaluates chess positions only"


async def nnue_weights() -> LoadedNNUE:
    """The chess NNUE as the engine loaded it (``(None, why)`` without one)."""
    return nnue_file.shipped()


NNUEDep = Annotated[LoadedNNUE, Depends(nnue_weights)]


@router.get("/learning", response_class=HTMLResponse, include_in_schema=False)
def learning_page(request: Request) -> HTMLResponse:
    return templates.TemplateResponse(request, "learning.html", {})


@router.get("/api/learning")
async def learning(
    learned: LearnedDep, nnue: NNUEDep, game: Literal["chess", "knight"] = "knight"
) -> dict[str, Any]:
    """The active learned weights of ``game``: training command, learning curve (each
    generation's Elo against the hand evaluation with its 95 % interval), what they learned
    (knight chess: the value of a knight on each square; chess: each feature's weight); or
    ``available: false`` with the reason and how to train. Chess adds ``nnue``: the
    network's size, provenance, piece-square maps and training curve, or why there is none."""
    weights, why = learned[game]
    out = await asyncio.to_thread(learning_report, game, weights, why)
    net, net_why = nnue
    out["nnue"] = (
        await asyncio.to_thread(nnue_report, net, net_why, nnue_file.active_path())
        if game == "chess"
        else None
    )
    return out


@router.get("/api/learning/nnue/position", response_model=NNUEPosition)
async def nnue_position(
    nnue: NNUEDep,
    fen: Annotated[str, Query(min_length=1, max_length=120)] = "startpos",
) -> Any:
    """What the NNUE adds over the hand evaluation in the chess position ``fen`` (the start
    position unless given): both values and each piece's contribution to each, for the
    side to move; 400 ``invalid_fen`` for a bad FEN."""
    net, why = nnue
    found = await asyncio.to_thread(what_it_adds, fen, net)
    return {
        "fen": found.fen,
        "turn": found.turn,
        "available": net is not None,
        "message": None if net is not None else why,
        "hand_cp": found.hand_cp,
        "hand_eval": found.hand_eval,
        "nnue_cp": found.nnue_cp,
        "nnue_eval": found.nnue_eval,
        "difference_cp": found.difference_cp,
        "pieces": [asdict(p) for p in found.pieces],
    }


def _values(pair: Any) -> dict[str, float | None]:
    return {"hand": pair.hand, "learned": pair.learned, "nnue": pair.nnue}


@router.post("/api/evaluations", response_model=Evaluations)
async def evaluations(body: EvaluationsRequest, learned: LearnedDep, nnue: NNUEDep) -> Any:
    """The hand, learned and (chess) NNUE static evaluations of ``fen`` and of each of
    ``moves``, every number for the side to move in ``fen``; 400 for a bad FEN or an
    illegal move."""
    weights, why = learned[body.game]
    net, net_why = nnue if body.game == "chess" else (None, CHESS_ONLY)
    both = await asyncio.to_thread(
        static_evaluations, body.game, body.fen, body.moves, weights, net
    )
    return {
        "game": body.game,
        "fen": body.fen,
        "learned": weights is not None,
        "message": None if weights is not None else why,
        "nnue": net is not None,
        "nnue_message": None if net is not None else net_why,
        "position": _values(both.position),
        "moves": [{"uci": u, **_values(p)} for u, p in both.moves],
    }
