"""The learned evaluation's weights file: format, loading with clear errors, saving.

The learned evaluation (:mod:`engine.search.learned_eval`) is an **N-tuple network**
on top of a linear layer over the hand-made features, for knight chess. Every array
is seen from the side to move: squares are flipped (``sq ^ 56``) when Black is to move,
so the same weights serve both colours. A position's logit (the log-odds of the side
to move scoring) is tapered between a middlegame and an endgame set of weights by the
phase ``p`` (1 at the start, 0 at the 200-ply rule, as in the hand evaluation)::

    z = Σ_p' share(p') · ( linear[p'] · f_stm  +  Σ_t weights[p', t, config_t]
                          +  Σ_knights contact[p', side, attackers · 4 + defenders] )

where ``f_stm`` are :data:`~engine.search.eval_features.KNIGHT_FEATURES` turned to the
side to move's view, ``t`` runs over the tuples (a few squares each) and ``config_t``
reads each of its squares as 0 empty, 1 a knight of the side to move, 2 an enemy
knight, in base 3 (first square least significant); the contact table scores each
knight by how many enemy knights attack it and how many friends defend it (each capped
at 3), a learned static exchange judgement. The evaluation is then
``2 · sigmoid(z) − 1`` in [-1, 1], the same scale as the hand evaluation's ``squash``.

The file (``engine/data/learned/knight.npz``, plain arrays, no pickle):

========== ==================== =================================================
key        shape / type         meaning
========== ==================== =================================================
version    int                  :data:`FORMAT_VERSION`
game       str                  ``"knight"``
kind       str                  ``"ntuple"``
features   (F,) str             the linear layer's features (must match the code)
linear     (2, F) float64       middlegame, endgame weights of the linear layer
tuples     (T, K) int64         each tuple's squares (side to move's view), -1 pads
weights    (2, T, 3**K) float64 middlegame, endgame weight of each tuple config
contact    (2, 2, 16) float64   middlegame, endgame weight of a knight (side to move's,
                                enemy's) by its attackers × defenders (0..3+ each)
command    str                  the command that trained it
meta       str                  JSON: generations, games, gating results, seconds
========== ==================== =================================================

``CANOPY_LEARNED_WEIGHTS`` names another file to use instead of the shipped one
(training runs candidate weights that way, in their own processes);
``engine/__init__.py`` hashes whichever file is used into the numba cache directory's
name, because the arrays are baked into the kernels as constants.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine.errors import CanopyError
from engine.files import read_npz, write_atomic
from engine.search.eval_features import KNIGHT_FEATURES

FORMAT_VERSION = 1
KIND = "ntuple"
MAX_TUPLE = 4  # squares per tuple (3**4 = 81 configs)
CAP = 4  # contact buckets: 0, 1, 2, 3+ attackers (and defenders)
CONTACT_SHAPE = (2, 2, CAP * CAP)
ENV_VAR = "CANOPY_LEARNED_WEIGHTS"
DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "learned"
GAMES = ("knight",)  # games with a learned evaluation


class LearnedWeightsError(CanopyError):
    """The learned evaluation's weights file is missing, corrupt, or for another game
    or shape."""

    code = "bad_learned_weights"


@dataclass(frozen=True)
class LearnedWeights:
    """One game's learned evaluation (see the module docstring for each array)."""

    game: str
    linear: np.ndarray  # (2, F)
    tuples: np.ndarray  # (T, K) int64, -1 pads
    weights: np.ndarray  # (2, T, 3**K)
    contact: np.ndarray = field(default_factory=lambda: np.zeros(CONTACT_SHAPE))
    command: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def parameters(self) -> int:
        return int(self.linear.size + self.weights.size)


def shipped_path(game: str = "knight") -> Path:
    """The file the engine loads for ``game``: ``$CANOPY_LEARNED_WEIGHTS`` if set (knight
    chess), else the shipped ``engine/data/learned/<game>.npz``."""
    override = os.environ.get(ENV_VAR)
    if override and game == "knight":
        return Path(override)
    return DATA_DIR / f"{game}.npz"


def save_weights(path: Path, w: LearnedWeights) -> None:
    """Write ``w`` to ``path`` atomically (temp file + rename: never half a file)."""
    check_arrays(w, str(path))
    path = Path(path)
    write_atomic(
        path,
        lambda out: np.savez(
            out,
            version=np.array(FORMAT_VERSION),
            game=np.array(w.game),
            kind=np.array(KIND),
            features=np.array(KNIGHT_FEATURES),
            linear=w.linear.astype(np.float64),
            tuples=w.tuples.astype(np.int64),
            weights=w.weights.astype(np.float64),
            contact=w.contact.astype(np.float64),
            command=np.array(w.command),
            meta=np.array(json.dumps(w.meta, sort_keys=True)),
        ),
    )


def check_arrays(w: LearnedWeights, where: str) -> None:
    """:class:`LearnedWeightsError` unless ``w``'s arrays fit together."""
    f = len(KNIGHT_FEATURES)
    if w.game not in GAMES:
        raise LearnedWeightsError(
            f"learned weights {where} are for game {w.game!r}; only {', '.join(GAMES)} has "
            "a learned evaluation"
        )
    if w.linear.shape != (2, f):
        raise LearnedWeightsError(
            f"learned weights {where}: linear has shape {w.linear.shape}, expected (2, {f})"
        )
    if w.tuples.ndim != 2 or not 1 <= w.tuples.shape[1] <= MAX_TUPLE or w.tuples.shape[0] < 1:
        raise LearnedWeightsError(
            f"learned weights {where}: tuples has shape {w.tuples.shape}, expected (T, K) "
            f"with T >= 1 and 1 <= K <= {MAX_TUPLE}"
        )
    t, k = w.tuples.shape
    if w.weights.shape != (2, t, 3**k):
        raise LearnedWeightsError(
            f"learned weights {where}: weights has shape {w.weights.shape}, expected "
            f"(2, {t}, {3**k}) for {t} tuples of {k} squares"
        )
    sq = w.tuples
    if np.any((sq < -1) | (sq > 63)) or np.any(sq[:, 0] < 0):
        raise LearnedWeightsError(
            f"learned weights {where}: tuple squares must be 0..63 (-1 pads, never first)"
        )
    pads = sq < 0
    if np.any(pads[:, :-1] & ~pads[:, 1:]):
        raise LearnedWeightsError(f"learned weights {where}: a tuple's -1 pads must come last")
    if w.contact.shape != CONTACT_SHAPE:
        raise LearnedWeightsError(
            f"learned weights {where}: contact has shape {w.contact.shape}, expected "
            f"{CONTACT_SHAPE}"
        )
    if not all(np.all(np.isfinite(a)) for a in (w.linear, w.weights, w.contact)):
        raise LearnedWeightsError(f"learned weights {where} hold non-finite numbers")


def load_weights(path: Path, game: str = "knight") -> LearnedWeights:
    """The learned weights in ``path`` for ``game``; :class:`LearnedWeightsError` naming
    the problem otherwise (missing, unreadable, another format, game or shape)."""
    fix = "train them with `canopy train --game knight` (docs/learning.md)"
    needed = ("version", "game", "kind", "features", "linear", "tuples", "weights", "contact")
    arrays = read_npz(Path(path), needed, "learned weights", fix, LearnedWeightsError)
    if arrays["version"].shape != () or int(arrays["version"]) != FORMAT_VERSION:
        raise LearnedWeightsError(
            f"learned weights file {path} has format {arrays['version']}, expected "
            f"{FORMAT_VERSION}; {fix}"
        )
    stored_game = str(arrays["game"])
    if stored_game != game:
        raise LearnedWeightsError(
            f"learned weights file {path} is for {stored_game!r}, not {game!r}; {fix}"
        )
    if str(arrays["kind"]) != KIND:
        raise LearnedWeightsError(
            f"learned weights file {path} holds a {str(arrays['kind'])!r} model, "
            f"expected {KIND!r}; {fix}"
        )
    names = tuple(str(n) for n in arrays["features"])
    if names != KNIGHT_FEATURES:
        raise LearnedWeightsError(
            f"learned weights file {path} was trained on other features ({list(names)}, "
            f"expected {list(KNIGHT_FEATURES)}); {fix}"
        )
    if not (
        np.issubdtype(arrays["tuples"].dtype, np.integer)
        and np.issubdtype(arrays["linear"].dtype, np.floating)
        and np.issubdtype(arrays["weights"].dtype, np.floating)
        and np.issubdtype(arrays["contact"].dtype, np.floating)
    ):
        raise LearnedWeightsError(
            f"learned weights file {path}: tuples must be integers, linear and weights "
            f"floating point; {fix}"
        )
    try:
        meta = json.loads(str(arrays["meta"])) if "meta" in arrays else {}
    except ValueError:
        meta = {}
    w = LearnedWeights(
        game=stored_game,
        linear=np.asarray(arrays["linear"], dtype=np.float64),
        tuples=np.asarray(arrays["tuples"]).astype(np.int64),
        weights=np.asarray(arrays["weights"], dtype=np.float64),
        contact=np.asarray(arrays["contact"], dtype=np.float64),
        command=str(arrays["command"]) if "command" in arrays else "",
        meta=meta if isinstance(meta, dict) else {},
    )
    check_arrays(w, f"file {path}")
    return w


@functools.cache
def shipped(game: str) -> tuple[LearnedWeights | None, str]:
    """``(weights, "")`` for ``game``'s learned evaluation, loaded once; ``(None, why)``
    when it has none or its file is bad (the hand evaluation works regardless)."""
    if game not in GAMES:
        return None, f"there is no learned evaluation for {game} yet; use eval=hand"
    try:
        return load_weights(shipped_path(game), game), ""
    except LearnedWeightsError as exc:
        return None, str(exc)


def require(game: str) -> LearnedWeights:
    """``game``'s loaded learned weights, or :class:`LearnedWeightsError` saying why not."""
    weights, why = shipped(game)
    if weights is None:
        raise LearnedWeightsError(f"eval=learned is unavailable: {why}")
    return weights
