"""Static evaluation for both games, in centipawns and squashed to [-1, 1].

Every function here scores **for the side to move**. This is the one evaluation
every algorithm uses, so "the same evaluation" holds in every comparison.

Each game also has a learned evaluation trained by self-play (knight chess: an N-tuple
network, :mod:`engine.eval.learned_knight`; chess: a small network on the hand features,
:mod:`engine.eval.learned_chess`), chosen per search by the parameter
``eval = hand | learned``; :func:`evaluate` reads the choice from the state itself.

The hand score is linear in fitted weights over the features of
:mod:`engine.eval.features` (chess: material, piece-square tables, mobility,
king safety, pawn structure, bishop pair, rooks on open files, tempo; knight chess:
knights, mobility, centralisation, defence and threats), tapered between a
middlegame and an endgame weight by the phase. With ``eval = scaled`` :func:`evaluate`
then scales a chess score by what a linear score cannot see — drawish material (a bare
minor piece, rook against minor, bishops of opposite colours …) and the fifty-move clock
(:mod:`engine.eval.scale`, whose docstring has why it is not the default). The weights
come from ``engine/data/eval/weights.npz`` (:mod:`engine.eval.weights`), fitted by
Texel's method on Canopy's own self-play (:mod:`engine.tune.texel`); they are read
once at import.

Squashing: ``eval = 2 / (1 + 10 ** (-cp / 400)) - 1``, i.e. twice the expected
score of the logistic Elo model minus one. +100 cp ≈ +0.28, +400 cp ≈ +0.82,
a queen up ≈ +0.99. Mate scores never pass through it: a win found by search
is ``WIN - 10 * ply`` (``WIN = 10000``), far outside [-1, 1].
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from engine.core.state import (
    CHESS,
    EVAL,
    GAME,
    HAND_EVAL,
    KNIGHT_CHESS,
    LEARNED_EVAL,
    NNUE_EVAL,
    SCALED_EVAL,
    TURN,
)
from engine.eval.features import (
    MAX_PHASE,
    N_CHESS,
    N_KNIGHT,
    chess_features,
    knight_features,
)
from engine.eval.learned_chess import learned_chess
from engine.eval.learned_knight import learned_knight
from engine.eval.nnue import nnue_fresh
from engine.eval.scale import chess_scale
from engine.eval.weights import shipped_weights

WIN = 10000.0
PLY_PENALTY = 10.0
SQUASH_CP = 400.0

WEIGHTS = shipped_weights()
CHESS_MG, CHESS_EG = WEIGHTS.chess_mg.copy(), WEIGHTS.chess_eg.copy()
KNIGHT_MG, KNIGHT_EG = WEIGHTS.knight_mg.copy(), WEIGHTS.knight_eg.copy()


@njit(cache=True, nogil=True)
def tapered(f: np.ndarray, phase: float, w_mg: np.ndarray, w_eg: np.ndarray) -> float:
    """``(w_mg · f · phase + w_eg · f · (24 − phase)) / 24``: White's score in centipawns.
    ``f`` may be longer than the weights (a scratch vector for either game's features)."""
    mg = 0.0
    eg = 0.0
    for i in range(w_mg.shape[0]):
        mg += w_mg[i] * f[i]
        eg += w_eg[i] * f[i]
    return (mg * phase + eg * (MAX_PHASE - phase)) / MAX_PHASE


#: Length of the feature vector :func:`evaluate_into` needs as scratch (either game's).
FEATURE_SCRATCH = max(N_CHESS, N_KNIGHT)


@njit(cache=True, nogil=True)
def chess_cp(s: np.ndarray, f: np.ndarray) -> float:
    """Chess score in centipawns for the side to move (``f``: scratch for the features)."""
    cp = tapered(f, chess_features(s, f), CHESS_MG, CHESS_EG)
    return cp if s[TURN] == 0 else -cp


@njit(cache=True, nogil=True)
def knight_cp(s: np.ndarray, f: np.ndarray) -> float:
    """Knight-chess score in centipawns for the side to move (``f``: scratch)."""
    cp = tapered(f, knight_features(s, f), KNIGHT_MG, KNIGHT_EG)
    return cp if s[TURN] == 0 else -cp


@njit(cache=True, nogil=True)
def centipawns_into(s: np.ndarray, f: np.ndarray) -> float:
    """:func:`centipawns` with ``f`` (length :data:`FEATURE_SCRATCH`) as the features'
    scratch, which the caller keeps: no array is allocated per call."""
    if s[GAME] == CHESS:
        return chess_cp(s, f)
    return knight_cp(s, f)


@njit(cache=True, nogil=True)
def centipawns(s: np.ndarray) -> float:
    """The hand score in centipawns for the side to move."""
    return centipawns_into(s, np.empty(FEATURE_SCRATCH))


@njit(cache=True, nogil=True)
def game_value(outcome: int, ply: int) -> float:
    """A finished game's value for one side: win ``WIN - 10 * ply``, loss its negative, draw 0.

    ``outcome`` is +1 / 0 / -1 for that side; ``ply`` counts from the search root,
    so a quicker win is worth more.
    """
    if outcome > 0:
        return WIN - PLY_PENALTY * ply
    if outcome < 0:
        return -(WIN - PLY_PENALTY * ply)
    return 0.0


@njit(cache=True, nogil=True)
def squash(cp: float) -> float:
    """Centipawns → [-1, 1] (logistic, 400 cp per factor of ten in odds)."""
    return 2.0 / (1.0 + 10.0 ** (-cp / SQUASH_CP)) - 1.0


@njit(cache=True, nogil=True)
def evaluate(s: np.ndarray) -> float:
    """Static evaluation in [-1, 1] for the side to move (:func:`evaluate_into` with a
    scratch vector of its own)."""
    return evaluate_into(s, np.empty(FEATURE_SCRATCH))


@njit(cache=True, nogil=True)
def evaluate_into(s: np.ndarray, f: np.ndarray) -> float:
    """Static evaluation in [-1, 1] for the side to move; ``f`` (length
    :data:`FEATURE_SCRATCH`) is the features' scratch. The searches pass one they keep
    (the alpha-beta search keeps it in its context): allocating a feature vector
    was about a quarter of an evaluation's cost, on every node of a quiescence search.

    The state's ``EVAL`` slot chooses it: the hand evaluation (``squash(centipawns)``,
    the default), the scaled hand evaluation (the centipawns first scaled by how much of
    the lead the material and the fifty-move clock let be won in chess,
    :mod:`engine.eval.scale`), the game's learned one
    (:mod:`engine.eval.learned_knight`, :mod:`engine.eval.learned_chess`) or the chess
    network over the pieces on their squares (:mod:`engine.eval.nnue`; summed afresh
    here — the alpha-beta searches update it incrementally instead,
    :func:`engine.search.parts.alphabeta.evaluate_cached`). A search
    sets the slot on its root (:func:`with_eval`) and every state below inherits it by
    copy-make; the hand evaluation costs two comparisons more than it did alone.
    """
    if s[EVAL] == NNUE_EVAL:
        return nnue_fresh(s)
    if s[EVAL] == LEARNED_EVAL:
        if s[GAME] == KNIGHT_CHESS:
            return learned_knight(s)
        return learned_chess(s)
    cp = centipawns_into(s, f)
    if s[EVAL] == SCALED_EVAL:
        cp *= chess_scale(s, cp)
    return squash(cp)


@njit(cache=True, nogil=True)
def batch_evaluate(states: np.ndarray) -> np.ndarray:
    """:func:`evaluate` of every row of ``states`` (timing and training use it)."""
    out = np.empty(states.shape[0])
    for i in range(states.shape[0]):
        out[i] = evaluate(states[i])
    return out


#: The ``eval`` parameter's choices and the ``EVAL`` slot value each sets.
EVAL_SLOTS = {
    "hand": HAND_EVAL, "learned": LEARNED_EVAL, "scaled": SCALED_EVAL, "nnue": NNUE_EVAL,
}  # fmt: skip


def with_eval(state: np.ndarray, params: dict[str, object]) -> np.ndarray:
    """``state`` with its ``EVAL`` slot set as ``params["eval"]`` says (``hand`` when the
    algorithm has no such parameter); the same array, changed in place."""
    state[EVAL] = EVAL_SLOTS.get(str(params.get("eval")), HAND_EVAL)
    return state


def unsquash(value: float) -> float:
    """Inverse of :func:`squash` (for UCI ``score cp``); clamps at ±3000 cp."""
    v = max(-0.9999, min(0.9999, value))
    return max(-3000.0, min(3000.0, -SQUASH_CP * math.log10(2.0 / (v + 1.0) - 1.0)))


def is_mate_score(value: float) -> bool:
    return abs(value) > WIN / 2


def mate_plies(value: float) -> int:
    """Plies to the mate a score announces (positive: the side it scores for mates)."""
    return round((WIN - abs(value)) / PLY_PENALTY)
