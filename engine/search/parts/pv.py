"""The principal variation: from a node down, each time to the child an algorithm's rule
prefers — in numba, because every snapshot walks one line per root move (a hundred root
moves, each line up to 32 plies, each ply a look at every child: in Python that took
45 ms of a 300 ms move, and held the GIL while the search's deadline passed).

The rules (``Algorithm.pv_rule``):

* ``PV_VISITS`` — the most visited child (UCT's robust child);
* ``PV_VALUE`` — the best backed-up value (bfms's negamax line);
* ``PV_PROVEN_FIRST`` — a proven win first (the quickest), then the most visits, a
  proven loss last (``mcts``: a mate in one is proven before it is visited).

Ties go to the first child in list order, as Python's ``max`` would.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.eval.evaluate import WIN
from engine.search.tree import FIRST_CHILD, FLAGS, MOVE, NEXT_SIBLING, NONE, PROVEN, VALUE, VISITS

PV_VISITS, PV_VALUE, PV_PROVEN_FIRST = 0, 1, 2


@njit(cache=True, nogil=True)
def pv_score(tree: tuple, node: int, rule: int) -> float:
    """How much the line prefers ``node`` among its siblings under ``rule``."""
    if rule == PV_VALUE:
        return float(tree[VALUE][node])
    visits = float(tree[VISITS][node])
    if rule == PV_PROVEN_FIRST:
        value = float(tree[VALUE][node])
        if tree[FLAGS][node] & PROVEN and value > WIN / 2:
            return 1.0e12 + value
        if tree[FLAGS][node] & PROVEN and value < -WIN / 2:
            return -1.0e12 + value
        return visits if visits else -1.0
    return visits


@njit(cache=True, nogil=True)
def pv_child(tree: tuple, node: int, rule: int, needs_visits: bool) -> int:
    """The child of ``node`` the line continues to under ``rule`` (NONE if none);
    ``needs_visits``: only a visited child may continue it."""
    next_sibling, visits = tree[NEXT_SIBLING], tree[VISITS]
    best = NONE
    best_score = -np.inf
    child = tree[FIRST_CHILD][node]
    while child != NONE:
        if not (needs_visits and visits[child] == 0):
            score = pv_score(tree, child, rule)
            if best == NONE or score > best_score:
                best, best_score = child, score
        child = next_sibling[child]
    return best


@njit(cache=True, nogil=True)
def pv_walk(tree: tuple, node: int, rule: int, needs_visits: bool, out: np.ndarray) -> int:
    """Write ``node``'s move and the line below it into ``out`` (as far as it is long);
    return its length. ``needs_visits``: only visited children continue the line."""
    move = tree[MOVE]
    out[0] = move[node]
    length = 1
    while length < out.shape[0]:
        node = pv_child(tree, node, rule, needs_visits)
        if node == NONE:
            break
        out[length] = move[node]
        length += 1
    return length
