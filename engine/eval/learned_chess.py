"""The learned evaluation for chess: a small network on top of the hand-made features.

The hand evaluation is linear in its 22 features (:mod:`engine.eval.features`),
tapered by the phase. The network keeps that linear layer and adds one small hidden
layer of clipped-ReLU units that read the same features — which the search computes
anyway — so it can learn what a weighted sum cannot: interactions (king safety counts
for more with queens on, a passed pawn for more without pieces), saturation (the third
extra pawn is worth less than the first). The logit for the side to move is::

    x   = (scale · f_stm, share)                   features turned to the side to move,
                                                    scaled; share = phase / 24 (1: opening)
    h_j = min(max(hidden[j] · x + bias[j], 0), 1)   H clipped-ReLU units (H = 8 by default)
    z   = share · linear[0] · f_stm + (1 − share) · linear[1] · f_stm + out · h

and the evaluation ``2 · sigmoid(z) − 1`` in [-1, 1], the hand evaluation's scale. With
``out = 0`` and ``linear`` the hand weights in logits (``cp · ln 10 / 400``) the
network *is* the hand evaluation — training starts there and learns a correction.

Why this and not an NNUE-style net over king-relative piece-square inputs
(docs/learning.md, "Chess: which model"): the features cost what the hand evaluation
costs already and the hidden layer adds ~H · 23 multiply-adds, so ``mcts`` keeps most of
its speed without incremental updates (a call costs 29 % more, measured); and
on the games two cores play in an hour even the 44 weights of the linear layer overfit
the results without a strong pull towards the hand weights, so the thousands of weights
of a piece-square net (768 inputs per hidden unit) had no data to learn from.
Not measured: such a net itself.

The shipped weights (or ``$CANOPY_LEARNED_WEIGHTS`` naming chess weights) are loaded
once at import and baked into :func:`learned_chess` as constants; :func:`net_logit`
takes the arrays as arguments for training, tests and the app's side-by-side view.
Without usable weights the constants are zero-sized stand-ins of the right types, so
every kernel compiles; a search never reaches them because ``eval=learned`` is refused
when the parameters are validated.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.core.state import TURN
from engine.eval.features import MAX_PHASE, N_CHESS, chess_features
from engine.eval.learned_knight import logit_to_eval
from engine.eval.learned_weights import ChessNetWeights, shipped


def arrays_of(w: ChessNetWeights) -> tuple[np.ndarray, ...]:
    """The arguments :func:`net_logit` takes after the state, as contiguous float64:
    ``(linear, scale, hidden_t, bias, out)``, ``hidden_t`` the file's ``hidden``
    transposed to (F + 1, H), so the kernel adds a feature to every unit along a row."""
    return tuple(
        np.ascontiguousarray(a, dtype=np.float64)
        for a in (w.linear, w.scale, w.hidden.T, w.bias, w.out)
    )


_LOADED, _WHY = shipped("chess")
if isinstance(_LOADED, ChessNetWeights):
    LINEAR, SCALE, HIDDEN_T, BIAS, OUT = arrays_of(_LOADED)
else:
    LINEAR, SCALE = np.zeros((2, N_CHESS)), np.zeros(N_CHESS)
    HIDDEN_T, BIAS, OUT = np.zeros((N_CHESS + 1, 0)), np.zeros(0), np.zeros(0)
AVAILABLE = _LOADED is not None


@njit(cache=True, nogil=True)
def net_logit(
    s: np.ndarray,
    linear: np.ndarray,
    scale: np.ndarray,
    hidden_t: np.ndarray,
    bias: np.ndarray,
    out: np.ndarray,
) -> float:
    """The network's logit for the side to move (log-odds of its expected score);
    the arrays as :func:`arrays_of` gives them."""
    f = np.empty(N_CHESS)
    share = chess_features(s, f) / MAX_PHASE
    sign = 1.0 if s[TURN] == 0 else -1.0  # features are White minus Black
    mg = 0.0
    eg = 0.0
    for i in range(N_CHESS):
        f[i] *= sign
        mg += linear[0, i] * f[i]
        eg += linear[1, i] * f[i]
        f[i] *= scale[i]
    z = mg * share + eg * (1.0 - share)
    h = bias.shape[0]
    acc = np.empty(h)
    for j in range(h):
        acc[j] = bias[j] + hidden_t[N_CHESS, j] * share
    for i in range(N_CHESS):  # feature by feature: the inner loop runs along a row of units
        fi = f[i]
        if fi != 0.0:  # many features are 0 in a given position (no passed pawn, no pair)
            for j in range(h):
                acc[j] += hidden_t[i, j] * fi
    for j in range(h):
        x = acc[j]
        if x > 0.0:
            z += out[j] * (x if x < 1.0 else 1.0)
    return z


@njit(cache=True, nogil=True)
def learned_chess(s: np.ndarray) -> float:
    """The learned evaluation in [-1, 1] for the side to move (the baked-in weights)."""
    return logit_to_eval(net_logit(s, LINEAR, SCALE, HIDDEN_T, BIAS, OUT))


@njit(cache=True, nogil=True)
def batch_net_logits(
    states: np.ndarray,
    linear: np.ndarray,
    scale: np.ndarray,
    hidden_t: np.ndarray,
    bias: np.ndarray,
    out: np.ndarray,
) -> np.ndarray:
    """:func:`net_logit` of every row of ``states``."""
    result = np.empty(states.shape[0])
    for i in range(states.shape[0]):
        result[i] = net_logit(states[i], linear, scale, hidden_t, bias, out)
    return result


@njit(cache=True, nogil=True)
def chess_rows(states: np.ndarray, features: np.ndarray, share: np.ndarray) -> None:
    """Training rows: each state's features for its side to move, unscaled, ``(n, F)``,
    and its phase share ``(n,)``."""
    f = np.empty(N_CHESS)
    for i in range(states.shape[0]):
        share[i] = chess_features(states[i], f) / MAX_PHASE
        sign = 1.0 if states[i][TURN] == 0 else -1.0
        for j in range(N_CHESS):
            features[i, j] = sign * f[j]
