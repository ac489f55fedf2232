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
* plus a bonus for giving check;
* (optional, ``killer_cp`` and ``history_cp``) for a quiet move, a bonus if it is a
  *killer* at its depth — one of the last two quiet moves found to refute a position
  at that depth of the tree — and a share of ``history_cp`` in proportion to its
  *history*, how often it has refuted a position anywhere (against the most often
  refuting move of the same side). They are alpha-beta's move-ordering tables, filled
  by the tree instead of by cut-offs: whenever a node's children get their scores, the
  best of them is the refutation (:func:`note_refutation`). What the static estimate
  cannot see — a quiet move that keeps working in the sibling positions — the tables
  have learned from the search so far.

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
from engine.search.codes import MAX_PATH
from engine.search.tree import DEPTH, FIRST_CHILD, MOVE, NEXT_SIBLING, NONE, PRIOR

# Material in centipawns by piece type (pawn … king). The king never is a victim; as an
# attacker it may only take an undefended piece, which a worth above every piece says.
PIECE_CP = np.array([100.0, 320.0, 330.0, 500.0, 950.0, 20000.0])
CHECK_CP = 60.0  # a check forces a reply and often leads somewhere: a small bonus
#: The history table: a count per side and (from, to) square pair, then each side's
#: largest count (the scale a move's share is taken against).
SQUARE_PAIRS = 64 * 64
HISTORY_SIZE = 2 * SQUARE_PAIRS + 2
#: The killer table: two quiet moves per depth of the tree (the newest first).
KILLER_ROWS = MAX_PATH + 1


def new_order_tables() -> tuple[np.ndarray, np.ndarray]:
    """An empty history table and killer table (one pair per worker: each thread's tree
    learns its own)."""
    return np.zeros(HISTORY_SIZE), np.full((KILLER_ROWS, 2), -1, dtype=np.int32)


@njit(cache=True, nogil=True)
def quiet(m: int) -> bool:
    """Neither a capture nor a promotion: the moves the static estimate cannot tell apart."""
    return not (m & FLAG_CAPTURE) and ((m >> 12) & 7) == 0


@njit(cache=True, nogil=True)
def order_bonus(
    order: tuple, side: int, depth: int, m: int, killer_cp: float, history_cp: float
) -> float:
    """The killer and history bonus, in centipawns, of move ``m`` by ``side`` into a node
    ``depth`` plies below the root (0 for a capture or a promotion)."""
    if not quiet(m):
        return 0.0
    killers = order[1]
    bonus = 0.0
    if killer_cp != 0.0 and (killers[depth, 0] == m or killers[depth, 1] == m):
        bonus += killer_cp
    if history_cp != 0.0:
        bonus += history_cp * history_share(order, side, m)
    return bonus


@njit(cache=True, nogil=True)
def history_share(order: tuple, side: int, m: int) -> float:
    """Move ``m``'s history count for ``side`` against that side's largest count, in
    [0, 1] (0 while the side has none): the fraction of ``history_cp`` it gets."""
    history = order[0]
    top = history[2 * SQUARE_PAIRS + side]
    return history[side * SQUARE_PAIRS + (m & 4095)] / top if top > 0.0 else 0.0


@njit(cache=True, nogil=True)
def note_refutation(order: tuple, tree: tuple, child: int, side: int) -> None:
    """``child`` (a move by ``side``) is the best reply in its parent's position: if it is
    quiet, count it in the history table and make it the first killer at its depth."""
    m = tree[MOVE][child]
    if not quiet(m):
        return
    history, killers = order
    slot = side * SQUARE_PAIRS + (m & 4095)
    history[slot] += 1.0
    top = 2 * SQUARE_PAIRS + side
    if history[slot] > history[top]:
        history[top] = history[slot]
    depth = tree[DEPTH][child]
    if killers[depth, 0] != m:
        killers[depth, 1] = killers[depth, 0]
        killers[depth, 0] = m


@njit(cache=True, nogil=True)
def age_order(order: tuple, plies: int) -> None:
    """After ``plies`` moves are played at the root: the counts halve (what refuted long
    ago counts for less) and each killer row moves up to the depth it now lies at."""
    history, killers = order
    for i in range(history.shape[0]):
        history[i] *= 0.5
    rows = killers.shape[0]
    for d in range(rows):
        if d + plies < rows:
            killers[d, 0], killers[d, 1] = killers[d + plies, 0], killers[d + plies, 1]
        else:
            killers[d, 0] = killers[d, 1] = -1


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
