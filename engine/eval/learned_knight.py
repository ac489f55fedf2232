"""The learned evaluation for knight chess: an N-tuple network in numba.

The arrays and their meaning are in :mod:`engine.eval.learned_weights`. The shipped
weights (or ``$CANOPY_LEARNED_WEIGHTS``) are loaded once at import and baked into
:func:`learned_knight` as constants, like the hand evaluation's; the kernels that take
the arrays as arguments (:func:`ntuple_logit`, :func:`tuple_rows`) serve training and
tests, which try weights that are not baked in.

When no usable weights exist the constants are zero-sized stand-ins of the right
types, so every kernel still compiles; a search never reaches them because
``eval=learned`` is refused when the parameters are validated
(:func:`engine.eval.learned_weights.require`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.core.bits import lsb, pop_lsb, popcount
from engine.core.state import KNIGHT, TURN, WHITE_BB
from engine.core.tables import KNIGHT_ATTACKS
from engine.eval.features import MAX_PHASE, N_KNIGHT, knight_features
from engine.eval.learned_weights import CAP, CONTACT_SHAPE, LearnedWeights, shipped


def derive(
    linear: np.ndarray, squares: np.ndarray, weights: np.ndarray, contact: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The arrays :func:`fast_logit` reads, from the file's arrays (same function).

    One-square tuples become piece-square tables read per knight (at most 32 lookups,
    not 64 tuple reads): ``pst[p, 0, q]`` adds for a knight of the side to move on
    ``q``, ``pst[p, 1, q]`` for an enemy knight, each minus the tuple's empty-square
    weight, which goes into ``base[p]``. Longer tuples stay as they are.
    Returns ``(linear, base, pst, squares, weights, contact)``, ``squares`` and
    ``weights`` of the longer tuples only, ``contact`` of shape (0, 2, 16) when it is all
    zero (the default: training keeps it so), so the search skips counting each knight's
    attackers and defenders for nothing.
    """
    base = np.zeros(2)
    pst = np.zeros((2, 2, 64))
    single = (squares[:, 1:] < 0).all(axis=1)
    for t in np.flatnonzero(single):
        q = int(squares[t, 0])
        for p in range(2):
            base[p] += weights[p, t, 0]
            pst[p, 0, q] += weights[p, t, 1] - weights[p, t, 0]
            pst[p, 1, q] += weights[p, t, 2] - weights[p, t, 0]
    multi = np.flatnonzero(~single)
    k = squares.shape[1]
    multi_squares = np.ascontiguousarray(squares[multi]).reshape(len(multi), k).astype(np.int64)
    multi_weights = np.ascontiguousarray(weights[:, multi, :]).reshape(2, len(multi), 3**k)
    contact = np.ascontiguousarray(contact, dtype=np.float64)
    if not contact.any():
        contact = np.zeros((0, *contact.shape[1:]))
    return linear.astype(np.float64).copy(), base, pst, multi_squares, multi_weights, contact


_LOADED, _WHY = shipped("knight")
if isinstance(_LOADED, LearnedWeights):
    LINEAR, BASE, PST, TUPLES, WEIGHTS, CONTACT = derive(
        _LOADED.linear, _LOADED.tuples, _LOADED.weights, _LOADED.contact
    )
else:
    LINEAR, BASE, PST, TUPLES, WEIGHTS, CONTACT = derive(
        np.zeros((2, N_KNIGHT)), np.zeros((1, 1), dtype=np.int64), np.zeros((2, 1, 3)),
        np.zeros(CONTACT_SHAPE),
    )  # fmt: skip
AVAILABLE = _LOADED is not None


@njit(cache=True, nogil=True)
def tuple_config(s: np.ndarray, squares: np.ndarray, t: int) -> int:
    """Tuple ``t``'s config in base 3 (0 empty, 1 side to move's knight, 2 enemy knight),
    its squares read from the side to move's view (flipped ranks when Black moves)."""
    us = np.int64(s[TURN])
    own = s[WHITE_BB + us] & s[KNIGHT]
    enemy = s[WHITE_BB + 1 - us] & s[KNIGHT]
    flip = 0 if us == 0 else 56
    idx = 0
    scale = 1
    for k in range(squares.shape[1]):
        q = squares[t, k]
        if q < 0:
            break
        bit = np.uint64(1) << np.uint64(q ^ flip)
        if own & bit:
            idx += scale
        elif enemy & bit:
            idx += 2 * scale
        scale *= 3
    return idx


@njit(cache=True, nogil=True)
def contact_index(s: np.ndarray, sq: int, side: int) -> int:
    """The contact bucket of the knight on ``sq`` (``side`` 0: the side to move's, 1: the
    enemy's): ``attackers · CAP + defenders``, each count of knights a knight's jump away
    capped at ``CAP − 1``. Knight attacks are symmetric, so a knight's attackers are the
    enemy knights it attacks too."""
    us = np.int64(s[TURN])
    colour = us if side == 0 else 1 - us
    friends = s[WHITE_BB + colour] & s[KNIGHT]
    enemies = s[WHITE_BB + 1 - colour] & s[KNIGHT]
    jumps = KNIGHT_ATTACKS[sq]
    a = min(popcount(jumps & enemies), CAP - 1)
    d = min(popcount(jumps & friends), CAP - 1)
    return a * CAP + d


@njit(cache=True, nogil=True)
def ntuple_logit(
    s: np.ndarray,
    linear: np.ndarray,
    squares: np.ndarray,
    weights: np.ndarray,
    contact: np.ndarray,
) -> float:
    """The network's logit for the side to move (log-odds of its expected score)."""
    f = np.empty(N_KNIGHT)
    mg_share = knight_features(s, f) / MAX_PHASE
    sign = 1.0 if s[TURN] == 0 else -1.0  # features are White minus Black
    mg = 0.0
    eg = 0.0
    for i in range(N_KNIGHT):
        mg += linear[0, i] * f[i]
        eg += linear[1, i] * f[i]
    mg *= sign
    eg *= sign
    for t in range(squares.shape[0]):
        c = tuple_config(s, squares, t)
        mg += weights[0, t, c]
        eg += weights[1, t, c]
    us = np.int64(s[TURN])
    for side in range(2):
        b = s[WHITE_BB + (us if side == 0 else 1 - us)] & s[KNIGHT]
        while b:
            sq = lsb(b)
            b = pop_lsb(b)
            k = contact_index(s, sq, side)
            mg += contact[0, side, k]
            eg += contact[1, side, k]
    return mg * mg_share + eg * (1.0 - mg_share)


@njit(cache=True, nogil=True)
def fast_logit(
    s: np.ndarray,
    linear: np.ndarray,
    base: np.ndarray,
    pst: np.ndarray,
    squares: np.ndarray,
    weights: np.ndarray,
    contact: np.ndarray,
) -> float:
    """:func:`ntuple_logit` from :func:`derive`'s arrays: one-square tuples read per knight."""
    f = np.empty(N_KNIGHT)
    mg_share = knight_features(s, f) / MAX_PHASE
    us = np.int64(s[TURN])
    sign = 1.0 if us == 0 else -1.0
    mg = base[0]
    eg = base[1]
    lin_mg = 0.0
    lin_eg = 0.0
    for i in range(N_KNIGHT):
        lin_mg += linear[0, i] * f[i]
        lin_eg += linear[1, i] * f[i]
    mg += sign * lin_mg
    eg += sign * lin_eg
    flip = 0 if us == 0 else 56
    for side in range(2):
        b = s[WHITE_BB + (us if side == 0 else 1 - us)] & s[KNIGHT]
        while b:
            sq = lsb(b)
            b = pop_lsb(b)
            q = sq ^ flip
            mg += pst[0, side, q]
            eg += pst[1, side, q]
            if contact.shape[0] > 0:
                k = contact_index(s, sq, side)
                mg += contact[0, side, k]
                eg += contact[1, side, k]
    for t in range(squares.shape[0]):
        c = tuple_config(s, squares, t)
        mg += weights[0, t, c]
        eg += weights[1, t, c]
    return mg * mg_share + eg * (1.0 - mg_share)


@njit(cache=True, nogil=True)
def logit_to_eval(z: float) -> float:
    """Logit → [-1, 1]: ``2·sigmoid(z) − 1`` (the hand evaluation's ``squash`` scale)."""
    if z > 40.0:
        z = 40.0
    elif z < -40.0:
        z = -40.0
    return 2.0 / (1.0 + np.exp(-z)) - 1.0


@njit(cache=True, nogil=True)
def learned_knight(s: np.ndarray) -> float:
    """The learned evaluation in [-1, 1] for the side to move (the baked-in weights)."""
    return logit_to_eval(fast_logit(s, LINEAR, BASE, PST, TUPLES, WEIGHTS, CONTACT))


@njit(cache=True, nogil=True)
def tuple_rows(
    states: np.ndarray,
    squares: np.ndarray,
    configs: np.ndarray,
    features: np.ndarray,
    mg_share: np.ndarray,
    contacts: np.ndarray,
) -> None:
    """Training rows: each state's tuple configs, side-to-move features, phase share and
    contact counts.

    ``configs`` is (n, T) int64, ``features`` (n, N_KNIGHT), ``mg_share`` (n,),
    ``contacts`` (n, 2 · CAP · CAP): how many knights of each side sit in each bucket.
    """
    f = np.empty(N_KNIGHT)
    for i in range(states.shape[0]):
        s = states[i]
        mg_share[i] = knight_features(s, f) / MAX_PHASE
        sign = 1.0 if s[TURN] == 0 else -1.0
        for j in range(N_KNIGHT):
            features[i, j] = sign * f[j]
        for t in range(squares.shape[0]):
            configs[i, t] = tuple_config(s, squares, t)
        for j in range(contacts.shape[1]):
            contacts[i, j] = 0.0
        us = np.int64(s[TURN])
        for side in range(2):
            b = s[WHITE_BB + (us if side == 0 else 1 - us)] & s[KNIGHT]
            while b:
                sq = lsb(b)
                b = pop_lsb(b)
                contacts[i, side * CAP * CAP + contact_index(s, sq, side)] += 1.0


@njit(cache=True, nogil=True)
def batch_logits(
    states: np.ndarray,
    linear: np.ndarray,
    squares: np.ndarray,
    weights: np.ndarray,
    contact: np.ndarray,
) -> np.ndarray:
    """:func:`ntuple_logit` of every row of ``states`` (the plain form)."""
    out = np.empty(states.shape[0])
    for i in range(states.shape[0]):
        out[i] = ntuple_logit(states[i], linear, squares, weights, contact)
    return out


@njit(cache=True, nogil=True)
def batch_fast_logits(
    states: np.ndarray,
    linear: np.ndarray,
    base: np.ndarray,
    pst: np.ndarray,
    squares: np.ndarray,
    weights: np.ndarray,
    contact: np.ndarray,
) -> np.ndarray:
    """:func:`fast_logit` of every row of ``states`` (the form the search runs)."""
    out = np.empty(states.shape[0])
    for i in range(states.shape[0]):
        out[i] = fast_logit(states[i], linear, base, pst, squares, weights, contact)
    return out
