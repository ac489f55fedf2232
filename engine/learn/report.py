"""What the app's Learning view shows about the active learned weights, or why there are none.

One plain dict per game (the ``GET /api/learning`` body): the weights in use (the
shipped file or ``$CANOPY_LEARNED_WEIGHTS``), their training command, learning curve
(:mod:`engine.learn.curve`) and square values (:mod:`engine.learn.heatmap`); without
usable weights, the loader's reason, the measured reason none ship, and the commands to
train and use one's own. The texts live here, beside the training code they describe,
so the app only lays them out.
"""

from __future__ import annotations

import os
from typing import Any

from engine.learn.curve import TrainingRecordError, learning_curve
from engine.learn.heatmap import knight_square_values
from engine.search.learned_weights import ENV_VAR, GAMES, LearnedWeights, shipped, shipped_path

#: Why no weights ship (measured; docs/learning.md, "Learned against hand at 100 ms a move").
NOT_SHIPPED = (
    "No learned weights ship with Canopy yet: the best trained weights played level with "
    "the hand evaluation at equal nodes but scored 45 % against it at 100 ms a move "
    "(0 wins, 36 draws, 4 losses: −35 Elo, 95 % interval −68 … −2), because the learned "
    "evaluation halves alpha-beta's nodes a second. The issue's bar is 60 %."
)
TRAIN_COMMAND = (
    "canopy train --game knight --games 800 --generations 3 --gate-games 100 --out train-knight"
)
SERVE_COMMAND = f"{ENV_VAR}=train-knight/best.npz canopy serve"
MATCH_COMMAND = (
    f"{ENV_VAR}=train-knight/best.npz canopy match --game knight "
    "--engine alphabeta:eval=learned --engine alphabeta:eval=hand --movetime 100 --games 40"
)


def how_to() -> dict[str, str]:
    """The commands to train weights, try them in a match, and serve the app with them."""
    return {"train": TRAIN_COMMAND, "match": MATCH_COMMAND, "serve": SERVE_COMMAND}


def learning_report(game: str, weights: LearnedWeights | None, why: str) -> dict[str, Any]:
    """The Learning view's data for ``game`` given the loaded ``weights`` (or ``why`` not)."""
    override = os.environ.get(ENV_VAR) if game in GAMES else None
    out: dict[str, Any] = {
        "game": game,
        "available": weights is not None,
        "source": ENV_VAR if override else "shipped",
        "file": shipped_path(game).name if game in GAMES else None,
        "message": None,
        "reason": None,
        "how_to": how_to(),
        "command": None,
        "parameters": None,
        "tuples": None,
        "curve": None,
        "curve_message": None,
        "squares": None,
    }
    if weights is None:
        out["message"] = why
        if game in GAMES and not override:
            out["reason"] = NOT_SHIPPED
        return out
    out.update(
        command=weights.command or None,
        parameters=weights.parameters,
        tuples=[int(weights.tuples.shape[0]), int(weights.tuples.shape[1])],
        squares=knight_square_values(weights).as_dict(),
    )
    try:
        out["curve"] = learning_curve(weights.meta).as_dict()
    except TrainingRecordError as exc:
        out["curve_message"] = str(exc)
    return out


def active_report(game: str) -> dict[str, Any]:
    """:func:`learning_report` of the weights the engine loaded for ``game``."""
    weights, why = shipped(game)
    return learning_report(game, weights, why)
