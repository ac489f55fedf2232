"""A cheap move-ordering prior: how promising each move looks before any search.

``mcts`` spreads its exploration over a node's children in proportion to these
priors (PUCT), so a free queen is tried first and a queen put where a pawn takes
it is tried last — without searching either. Each move gets a *gain* in
centipawns for the side making it:

* the piece it captures (en passant: a pawn) and the promotion's material;
* minus what the moved piece risks on its new square: nothing when no enemy
  piece attacks it, all of it when it is undefended, else what it is worth
  above its cheapest attacker (a one-exchange static estimate, SEE-lite);
* plus half what it risked on its old square, by the same rule (a threatened
  piece that steps away is saved; half, because taking the attacker often saves it
  too, and that capture must not rank below the escape);
* plus a bonus for giving check.

The priors are a softmax of the gains at a temperature (centipawns): ``exp(g /
T)`` normalised over the node's children, so with ``T = 100`` a move winning a
pawn more than another gets e ≈ 2.7 times its share. A share ``mix`` of the
uniform prior is added, so no move's prior is vanishingly small: a queen
sacrifice that mates looks like a lost queen to this estimate, and PUCT must
still come to try it. Knight chess uses the same rule (every piece a knight,
worth the same).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from engine.core.chess_core import exchange_risk, piece_at
from engine.core.games import in_check
from engine.core.state import BLACK_BB, FLAG_CAPTURE, FLAG_EP, KING, PAWN, TURN, WHITE_BB
from engine.search.tree import FIRST_CHILD, NEXT_SIBLING, NONE, PRIOR

# Material in centipawns by piece type (pawn … king). The king never is a victim; as an
# attacker it may only take an undefended piece, which a worth above every piece says.
PIECE_CP = np.array([100.0, 320.0, 330.0, 500.0, 950.0, 20000.0])
CHECK_CP = 60.0  # a check forces a reply and often leads somewhere: a small bonus


@njit(cache=True, nogil=True)
def exposure(s: np.ndarray, sq: int, worth: float, attacker: int) -> float:
    """What a piece worth ``worth`` (centipawns) on ``sq`` stands to lose to colour
    ``attacker`` in position ``s``: :func:`engine.core.chess_core.exchange_risk`, the
    rule the quiescence search's exchange filter uses too."""
    occ = s[WHITE_BB] | s[BLACK_BB]
    return exchange_risk(s, sq, occ, np.uint64(0), attacker, worth, PIECE_CP)


@njit(cache=True, nogil=True)
def move_gain(s: np.ndarray, child: np.ndarray, m: int) -> float:
    """Estimated gain in centipawns of move ``m`` from ``s`` (``child`` = ``s`` after it)."""
    us = np.int64(s[TURN])
    frm, to, promo = m & 63, (m >> 6) & 63, (m >> 12) & 7
    mover = piece_at(s, frm)
    gain = 0.0
    if m & FLAG_CAPTURE:
        gain += PIECE_CP[PAWN] if m & FLAG_EP else PIECE_CP[piece_at(s, to)]
    worth = PIECE_CP[mover]
    if promo:
        gain += PIECE_CP[promo] - PIECE_CP[PAWN]
        worth = PIECE_CP[promo]
    if mover != KING:
        gain -= exposure(child, to, worth, 1 - us)
        gain += 0.5 * exposure(s, frm, PIECE_CP[mover], 1 - us)
    if in_check(child):
        gain += CHECK_CP
    return gain


@njit(cache=True, nogil=True)
def normalise_priors(tree: tuple, node: int, temperature: float, uniform: bool, mix: float) -> None:
    """Turn the gains stored in ``node``'s children's ``prior`` into a softmax at
    ``temperature`` mixed with ``mix`` of the uniform prior (or, with ``uniform``, into
    ``1 / children``); they sum to 1."""
    first_child, next_sibling, prior = tree[FIRST_CHILD], tree[NEXT_SIBLING], tree[PRIOR]
    count = 0
    top = -math.inf
    child = first_child[node]
    while child != NONE:
        count += 1
        if prior[child] > top:
            top = prior[child]
        child = next_sibling[child]
    if count == 0:
        return
    total = 0.0
    child = first_child[node]
    while child != NONE:
        weight = 1.0 if uniform else math.exp((prior[child] - top) / temperature)
        prior[child] = weight
        total += weight
        child = next_sibling[child]
    floor = mix / count
    child = first_child[node]
    while child != NONE:
        prior[child] = (1.0 - mix) * prior[child] / total + floor
        child = next_sibling[child]
