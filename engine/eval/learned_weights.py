"""The learned evaluations' weights files: format, loading with clear errors, saving.

Each game has its own model, kind and file:

* **knight chess** (``knight.npz``, kind ``ntuple``, :class:`LearnedWeights`) — an
  **N-tuple network** on top of a linear layer over the hand-made features
  (:mod:`engine.eval.learned_knight`), described below;
* **chess** (``chess.npz``, kind ``mlp``, :class:`ChessNetWeights`) — a small network
  on top of the hand-made chess features (:mod:`engine.eval.learned_chess`, whose
  docstring has its arrays).

The knight-chess network: Every array
is seen from the side to move: squares are flipped (``sq ^ 56``) when Black is to move,
so the same weights serve both colours. A position's logit (the log-odds of the side
to move scoring) is tapered between a middlegame and an endgame set of weights by the
phase ``p`` (1 at the start, 0 at the 200-ply rule, as in the hand evaluation)::

    z = Σ_p' share(p') · ( linear[p'] · f_stm  +  Σ_t weights[p', t, config_t]
                          +  Σ_knights contact[p', side, attackers · 4 + defenders] )

where ``f_stm`` are :data:`~engine.eval.features.KNIGHT_FEATURES` turned to the
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

The chess file (``engine/data/learned/chess.npz``) has the same ``version``, ``game``
(``"chess"``), ``kind`` (``"mlp"``), ``features`` (the chess features), ``command`` and
``meta``, and the network's arrays ``linear`` (2, F), ``scale`` (F,), ``hidden`` (H, F + 1),
``bias`` (H,) and ``out`` (H,) (:mod:`engine.eval.learned_chess`).

``CANOPY_LEARNED_WEIGHTS`` names another file (or several, ``os.pathsep`` between them)
to use instead of the shipped one of the game each file is for (training runs candidate
weights that way, in their own processes); ``engine/__init__.py`` hashes whichever files
are used into the numba cache directory's name, because the arrays are baked into the
kernels as constants.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import zipfile
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from engine.errors import CanopyError
from engine.eval.names import FEATURES
from engine.files import provenance, read_npz, write_atomic

FORMAT_VERSION = 1
KIND = "ntuple"  # knight chess's model
CHESS_KIND = "mlp"  # chess's model
KINDS = {"knight": KIND, "chess": CHESS_KIND}
MAX_TUPLE = 4  # squares per tuple (3**4 = 81 configs)
CAP = 4  # contact buckets: 0, 1, 2, 3+ attackers (and defenders)
CONTACT_SHAPE = (2, 2, CAP * CAP)
MAX_HIDDEN = 64  # hidden units of the chess network
ENV_VAR = "CANOPY_LEARNED_WEIGHTS"
DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "learned"
GAMES = ("knight", "chess")  # games with a learned evaluation


class LearnedWeightsError(CanopyError):
    """The learned evaluation's weights file is missing, corrupt, or for another game
    or shape."""

    code = "bad_learned_weights"


@dataclass(frozen=True)
class LearnedWeights:
    """Knight chess's learned evaluation (see the module docstring for each array)."""

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


@dataclass(frozen=True)
class ChessNetWeights:
    """Chess's learned evaluation: the hand features' linear layer plus one small hidden
    layer (:mod:`engine.eval.learned_chess` has the arithmetic)."""

    game: str
    linear: np.ndarray  # (2, F): middlegame, endgame logit per feature (side to move's view)
    scale: np.ndarray  # (F,): each feature's factor on its way into the hidden layer
    hidden: np.ndarray  # (H, F + 1): hidden units' weights on the scaled features and phase
    bias: np.ndarray  # (H,)
    out: np.ndarray  # (H,): each hidden unit's weight in the logit
    command: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def parameters(self) -> int:
        return int(self.linear.size + self.hidden.size + self.bias.size + self.out.size)


AnyWeights = LearnedWeights | ChessNetWeights


def shipped_path(game: str = "knight") -> Path:
    """The shipped ``engine/data/learned/<game>.npz`` (``$CANOPY_LEARNED_WEIGHTS``, when
    set, replaces it for the game that file is for: :func:`shipped`)."""
    return DATA_DIR / f"{game}.npz"


def override_paths() -> list[Path]:
    """The files ``$CANOPY_LEARNED_WEIGHTS`` names: one, or several separated by
    ``os.pathsep`` (``knight.npz:chess.npz``), each for the game it says it is for."""
    value = os.environ.get(ENV_VAR) or ""
    return [Path(part) for part in value.split(os.pathsep) if part]


def active_path(game: str) -> Path:
    """The file the engine loads for ``game``: the first file ``$CANOPY_LEARNED_WEIGHTS``
    names that holds weights for ``game`` (or whose game cannot be read: its error is the
    answer), else the shipped file."""
    for path in override_paths():
        stored = _stored_game(path)
        if stored is None or stored == game:
            return path
    return shipped_path(game)


def _stored_game(path: Path) -> str | None:
    """The ``game`` a weights file says it is for; None if that cannot be read."""
    try:
        with np.load(path, allow_pickle=False) as data:
            return str(data["game"])
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None  # the loader names the problem


def save_weights(path: Path, w: AnyWeights) -> None:
    """Write ``w`` to ``path`` atomically (temp file + rename: never half a file)."""
    check_arrays(w, str(path))
    arrays: dict[str, np.ndarray]
    if isinstance(w, ChessNetWeights):
        arrays = {"linear": w.linear, "scale": w.scale, "hidden": w.hidden, "bias": w.bias,
                  "out": w.out}  # fmt: skip
        arrays = {key: a.astype(np.float64) for key, a in arrays.items()}
    else:
        arrays = {
            "linear": w.linear.astype(np.float64),
            "tuples": w.tuples.astype(np.int64),
            "weights": w.weights.astype(np.float64),
            "contact": w.contact.astype(np.float64),
        }
    path = Path(path)
    write_atomic(
        path,
        lambda out: np.savez(
            out,
            version=np.array(FORMAT_VERSION),
            game=np.array(w.game),
            kind=np.array(KINDS[w.game]),
            features=np.array(FEATURES[w.game]),
            command=np.array(w.command),
            meta=np.array(json.dumps(w.meta, sort_keys=True)),
            **arrays,
        ),
    )


def _shape(name: str, a: np.ndarray, want: tuple[int, ...], where: str) -> None:
    if a.shape != want:
        raise LearnedWeightsError(
            f"learned weights {where}: {name} has shape {a.shape}, expected {want}"
        )


def check_arrays(w: AnyWeights, where: str) -> None:
    """:class:`LearnedWeightsError` unless ``w``'s arrays fit together."""
    if w.game not in GAMES or (w.game == "chess") != isinstance(w, ChessNetWeights):
        raise LearnedWeightsError(
            f"learned weights {where} are for game {w.game!r} but hold a "
            f"{type(w).__name__}; the games with a learned evaluation are {', '.join(GAMES)}"
        )
    f = len(FEATURES[w.game])
    _shape("linear", w.linear, (2, f), where)
    if isinstance(w, ChessNetWeights):
        h = w.bias.shape[0] if w.bias.ndim == 1 else -1
        if not 1 <= h <= MAX_HIDDEN:
            raise LearnedWeightsError(
                f"learned weights {where}: bias has shape {w.bias.shape}, expected (H,) "
                f"with 1 <= H <= {MAX_HIDDEN}"
            )
        _shape("scale", w.scale, (f,), where)
        _shape("hidden", w.hidden, (h, f + 1), where)
        _shape("out", w.out, (h,), where)
        arrays: tuple[np.ndarray, ...] = (w.linear, w.scale, w.hidden, w.bias, w.out)
    else:
        _check_ntuple(w, where)
        arrays = (w.linear, w.weights, w.contact)
    if not all(np.all(np.isfinite(a)) for a in arrays):
        raise LearnedWeightsError(f"learned weights {where} hold non-finite numbers")


def _check_ntuple(w: LearnedWeights, where: str) -> None:
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
    _shape("contact", w.contact, CONTACT_SHAPE, where)


def digest(w: AnyWeights) -> str:
    """A short digest of ``w``'s arrays (not its command or meta): the identity of the
    weights a measurement was made with, whatever file they were copied to."""
    h = hashlib.sha256()
    for f in fields(w):
        value = getattr(w, f.name)
        if isinstance(value, np.ndarray):
            h.update(f.name.encode())
            h.update(np.ascontiguousarray(value, dtype=np.float64).tobytes())
    return h.hexdigest()[:16]


def _fix(game: str) -> str:
    return f"train them with `canopy train --game {game}` (docs/learning.md)"


def load_weights(path: Path, game: str = "knight") -> AnyWeights:
    """The learned weights in ``path`` for ``game`` (:class:`LearnedWeights` for knight
    chess, :class:`ChessNetWeights` for chess); :class:`LearnedWeightsError` naming the
    problem otherwise (missing, unreadable, another format, game or shape)."""
    fix = _fix(game)
    arrays = read_npz(Path(path), ("version", "game", "kind", "features"), "learned weights",
                      fix, LearnedWeightsError)  # fmt: skip
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
    if game not in GAMES:
        raise LearnedWeightsError(f"there is no learned evaluation for {game!r}")
    if str(arrays["kind"]) != KINDS[game]:
        raise LearnedWeightsError(
            f"learned weights file {path} holds a {str(arrays['kind'])!r} model, "
            f"expected {KINDS[game]!r}; {fix}"
        )
    names = tuple(str(n) for n in arrays["features"])
    if names != FEATURES[game]:
        raise LearnedWeightsError(
            f"learned weights file {path} was trained on other features ({list(names)}, "
            f"expected {list(FEATURES[game])}); {fix}"
        )
    floats = ("linear", "scale", "hidden", "bias", "out") if game == "chess" else (
        "linear", "weights", "contact")  # fmt: skip
    missing = [key for key in (*floats, *(() if game == "chess" else ("tuples",)))
               if key not in arrays]  # fmt: skip
    if missing:
        raise LearnedWeightsError(f"learned weights file {path} lacks {missing}; {fix}")
    if not all(np.issubdtype(arrays[key].dtype, np.floating) for key in floats) or (
        game == "knight" and not np.issubdtype(arrays["tuples"].dtype, np.integer)
    ):
        raise LearnedWeightsError(
            f"learned weights file {path}: {', '.join(floats)} must be floating point"
            f"{'' if game == 'chess' else ', tuples integers'}; {fix}"
        )
    command, meta = provenance(arrays)
    common: dict[str, Any] = {"command": command, "meta": meta}
    f = {key: np.asarray(arrays[key], dtype=np.float64) for key in floats}
    w: AnyWeights
    if game == "chess":
        w = ChessNetWeights(game, **f, **common)
    else:
        w = LearnedWeights(game, tuples=np.asarray(arrays["tuples"]).astype(np.int64), **f,
                           **common)  # fmt: skip
    check_arrays(w, f"file {path}")
    return w


@functools.cache
def shipped(game: str) -> tuple[AnyWeights | None, str]:
    """``(weights, "")`` for ``game``'s learned evaluation, loaded once; ``(None, why)``
    when it has none or its file is bad (the hand evaluation works regardless)."""
    if game not in GAMES:
        return None, f"there is no learned evaluation for {game} yet; use eval=hand"
    try:
        return load_weights(active_path(game), game), ""
    except LearnedWeightsError as exc:
        return None, str(exc)


def require(game: str) -> AnyWeights:
    """``game``'s loaded learned weights, or :class:`LearnedWeightsError` saying why not."""
    weights, why = shipped(game)
    if weights is None:
        raise LearnedWeightsError(f"eval=learned is unavailable: {why}")
    return weights
