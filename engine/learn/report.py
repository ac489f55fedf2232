"""What the app's Learning view shows about the active learned weights, or why there are none.

One plain dict per game (the ``GET /api/learning`` body): the weights in use (the
shipped file or ``$CANOPY_LEARNED_WEIGHTS``), their training command, learning curve
(:mod:`engine.learn.curve`) and what they learned — knight chess: the value of a knight
on each square (:mod:`engine.learn.heatmap`); chess: each hand feature's weight, hand
against learned (:func:`engine.learn.chessnet.feature_weights`); which generation of
their run the weights are and whether gating kept them; for the shipped weights, whether
they are a default, as measured; without usable weights, the loader's reason, what
should have been there, and the commands to train and use one's own. The texts live here,
beside the training code they describe, so the app only lays them out.

Chess has a third evaluation, the NNUE (:mod:`engine.eval.nnue`): :func:`nnue_report`
describes the network loaded (the shipped file or ``$CANOPY_NNUE_WEIGHTS``) — its size,
provenance, what it thinks each piece is worth on each square
(:mod:`engine.learn.nnue_heatmap`) and its training curve as its ``meta`` records it — or
why there is none and the command that trains one.
"""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path
from typing import Any

from engine.eval.learned_weights import (
    ENV_VAR,
    GAMES,
    AnyWeights,
    ChessNetWeights,
    active_path,
    digest,
    override_paths,
)
from engine.eval.nnue_weights import ENV_VAR as NNUE_ENV_VAR
from engine.eval.nnue_weights import SHIPPED as NNUE_SHIPPED
from engine.eval.nnue_weights import NNUEWeights
from engine.learn.chessnet import feature_weights
from engine.learn.curve import TrainingRecordError, learning_curve
from engine.learn.heatmap import knight_square_values
from engine.learn.nnue_heatmap import piece_square_maps, rounded

#: What the Learning view says when a game's weights cannot be loaded, per game
#: (measured; docs/learning.md).
NOT_SHIPPED = {
    "knight": (
        "Canopy ships learned knight-chess weights (engine/data/learned/knight.npz, trained "
        "for uct-minimax's unsettled leaves: 61.3 % against the hand evaluation at 100 ms a "
        "move over 560 games), but they could not be loaded here — the message above says "
        "why. Reinstall Canopy, or train and serve your own with the commands below."
    ),
    "chess": (
        "Canopy ships learned chess weights (engine/data/learned/chess.npz, a small network "
        "on the hand features, for comparison: the default stays the hand evaluation), but "
        "they could not be loaded here — the message above says why. Reinstall Canopy, or "
        "train and serve your own with the commands below."
    ),
}
#: What the Learning view says of the shipped weights — whether they are a default, and the
#: measurement that decided it (docs/learning.md) — keyed by the digest of the weights
#: measured (:func:`~engine.eval.learned_weights.digest`), so that other weights copied
#: over a shipped file are never described by these figures.
MEASURED_NOTE = {
    ("knight", "985f65038de608d4"): (
        "The default evaluation of uct-minimax in knight chess, whose leaves are not settled "
        "by a quiescence search: 61.3 % against the hand evaluation at 100 ms a move (560 "
        "games, +80 Elo, 95 % interval +51 … +110). The other algorithms keep eval=hand; "
        "choose eval=learned to compare."
    ),
    ("chess", "5501110b57e51123"): (
        "Shipped to compare, not as a default: no generation of this run won its gating "
        "match, and this one, generation 3 (the most games), scored 45.6 % against the hand "
        "evaluation with mcts at 300 ms a move (80 games: +23 =27 −30, −30 Elo, 95 % "
        "interval −94 … +31). Every algorithm keeps eval=hand in chess; choose eval=learned "
        "to compare."
    ),
}
#: The algorithm each game's measurement uses: knight chess the one its weights are for
#: (uct-minimax, whose leaves are not settled by a quiescence search), chess the issue's.
MEASURED_WITH = {"knight": ("uct-minimax", 100), "chess": ("mcts", 300)}
#: How each game's weights are trained (knight: the command of the shipped weights).
TRAIN_OPTIONS = {
    "knight": "--games 1200 --nodes 1000 --generations 1 --target quiescence --lam 0.3 "
    "--fit-linear --fit-contact --gate-algo uct-minimax --gate-budget 40",
    "chess": "--games 1000 --generations 3 --gate-games 100",
}


def how_to(game: str = "knight") -> dict[str, str]:
    """The commands to train weights, try them in a match, and serve the app with them."""
    algorithm, movetime = MEASURED_WITH[game]
    out = f"train-{game}"
    train = f"canopy train --game {game} {TRAIN_OPTIONS[game]} --out {out}"
    match = (
        f"{ENV_VAR}={out}/best.npz canopy match --game {game} "
        f"--engine {algorithm}:eval=learned --engine {algorithm}:eval=hand "
        f"--movetime {movetime} --games 40"
    )
    return {"train": train, "match": match, "serve": f"{ENV_VAR}={out}/best.npz canopy serve"}


def learning_report(game: str, weights: AnyWeights | None, why: str) -> dict[str, Any]:
    """The Learning view's data for ``game`` given the loaded ``weights`` (or ``why`` not)."""
    from_override = game in GAMES and active_path(game) in override_paths()
    out: dict[str, Any] = {
        "game": game,
        "available": weights is not None,
        "source": ENV_VAR if from_override else "shipped",
        "file": active_path(game).name if game in GAMES else None,
        "message": None,
        "reason": None,
        "how_to": how_to(game),
        "command": None,
        "parameters": None,
        "tuples": None,
        "hidden": None,
        "curve": None,
        "curve_message": None,
        "squares": None,
        "features": None,
        "generation": None,
        "kept": None,
        "note": None,
    }
    if weights is None:
        out["message"] = why
        if game in GAMES and not from_override:
            out["reason"] = NOT_SHIPPED[game]
        return out
    out.update(command=weights.command or None, parameters=weights.parameters)
    if isinstance(weights, ChessNetWeights):
        out.update(hidden=int(weights.bias.shape[0]), features=feature_weights(weights))
    else:
        out.update(
            tuples=[int(weights.tuples.shape[0]), int(weights.tuples.shape[1])],
            squares=knight_square_values(weights).as_dict(),
        )
    out["note"] = MEASURED_NOTE.get((game, digest(weights)))
    try:
        curve = learning_curve(weights.meta)
    except TrainingRecordError as exc:
        out["curve_message"] = str(exc)
        return out
    out["curve"] = curve.as_dict()
    number = weights.meta.get("generation")
    point = next((p for p in curve.points if p.generation == number), None)
    if point is not None:
        out.update(generation=point.generation, kept=point.accepted)
    return out


#: The command that trains an NNUE, and where it is explained.
NNUE_TRAIN = "canopy train --game chess --model nnue"
NNUE_DOCS = "docs/learning.md"
#: What the ``meta`` of an NNUE file says about how it was trained, as the page lists it.
NNUE_FACTS = ("generation", "positions", "epochs", "lam", "lr", "batch", "seed", "fit_seconds")


def _number(x: Any) -> float | None:
    """``x`` as a finite float, else None (a meta written by hand may hold anything)."""
    if isinstance(x, bool) or not isinstance(x, int | float) or not math.isfinite(x):
        return None
    return float(x)


def _count(x: Any) -> int | None:
    n = _number(x)
    return None if n is None else int(n)


def _losses(values: Any) -> list[float | None]:
    return [_number(v) for v in values] if isinstance(values, list) else []


def _gate(entry: dict[str, Any], number: Any) -> dict[str, Any] | None:
    """One generation's gating match from a meta record: ``{number, score, elo, low, high,
    games, positions, accepted}``, the match's fields possibly nested under ``gate``."""
    nested = entry.get("gate")
    gate: dict[str, Any] = nested if isinstance(nested, dict) else entry
    score = _number(gate.get("score"))
    if score is None:
        return None
    ci = gate.get("elo_ci95")
    low, high = ci if isinstance(ci, list | tuple) and len(ci) == 2 else (None, None)
    accepted = entry.get("accepted")
    return {
        "number": _count(entry.get("number", number)),
        "score": score,
        "elo": _number(gate.get("elo")),
        "low": _number(low),
        "high": _number(high),
        "games": _count(gate.get("games")),
        "positions": _count(entry.get("positions")),
        "accepted": accepted if isinstance(accepted, bool) else score > 0.5,
    }


def nnue_curve(meta: dict[str, Any]) -> dict[str, Any]:
    """The training curve an NNUE's ``meta`` records: the loss per epoch of its fit
    (training and held-out positions) and, per generation, its gating match's score and
    Elo with the 95 % interval (``generations``; or the file's own ``gate``). Empty lists
    where nothing was recorded."""
    records = meta.get("generations")
    if not isinstance(records, list) or not records:
        gate = meta.get("gate")
        records = [{"number": meta.get("generation", 1), "positions": meta.get("positions"),
                    "gate": gate}] if isinstance(gate, dict) else []  # fmt: skip
    gates = [g for i, r in enumerate(records) if isinstance(r, dict)
             if (g := _gate(r, i + 1)) is not None]  # fmt: skip
    return {
        "train_loss": _losses(meta.get("train_loss")),
        "held_loss": _losses(meta.get("held_loss")),
        "generations": gates,
    }


def _trained_on(meta: dict[str, Any], path: Path | None) -> str | None:
    """The date the network was trained: its meta's ``date``, else its file's."""
    date = meta.get("date") or meta.get("created")
    if isinstance(date, str) and date:
        return date[:10]
    if path is not None and path.exists():
        return dt.date.fromtimestamp(path.stat().st_mtime).isoformat()
    return None


def nnue_report(weights: NNUEWeights | None, why: str, path: Path | None) -> dict[str, Any]:
    """The Learning view's NNUE section: the network ``weights`` loaded from ``path``
    (``None``: why not), see the module docstring."""
    out: dict[str, Any] = {
        "available": weights is not None,
        "why": None if weights is not None else why,
        "source": "shipped" if path is None or path == NNUE_SHIPPED else NNUE_ENV_VAR,
        "file": path.name if path is not None else None,
        "train": NNUE_TRAIN,
        "docs": NNUE_DOCS,
        "hidden": None,
        "parameters": None,
        "command": None,
        "meta": None,
        "maps": None,
        "curve": None,
    }
    if weights is None:
        return out
    meta = weights.meta
    facts = {k: meta[k] for k in NNUE_FACTS if _number(meta.get(k)) is not None}
    out.update(
        hidden=weights.hidden,
        parameters=weights.parameters,
        command=weights.command or None,
        meta={**facts, "date": _trained_on(meta, path)},
        maps=rounded(piece_square_maps(weights)),
        curve=nnue_curve(meta),
    )
    return out
