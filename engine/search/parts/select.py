"""Tree policies: which child to descend into.

Both rules rank a parent's children by a value for the side to move at the
parent (= the side that moved into the child, the point of view every node
value is stored in) plus an exploration bonus.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from engine.core.bits import rng_below
from engine.search.tree import FIRST_CHILD, NEXT_SIBLING, NONE, VALUE, VALUE_SUM, VISITS

INF = math.inf


@njit(cache=True, nogil=True)
def ucb1(value_sum: float, visits: int, parent_visits: int, c: float) -> float:
    """UCB1 as in UCT: ``Q/N + c * sqrt(2 ln N_parent / N)``; unvisited children score +inf."""
    if visits == 0:
        return INF
    return value_sum / visits + c * math.sqrt(2.0 * math.log(parent_visits) / visits)


@njit(cache=True, nogil=True)
def select_ucb1(tree: tuple, node: int, c: float) -> int:
    """Child of ``node`` with the highest UCB1 (first in list order on ties)."""
    first_child, next_sibling, visits, value_sum = (
        tree[FIRST_CHILD], tree[NEXT_SIBLING], tree[VISITS], tree[VALUE_SUM],
    )  # fmt: skip
    parent_visits = max(1, visits[node])
    best = NONE
    best_score = -INF
    child = first_child[node]
    while child != NONE:
        score = ucb1(value_sum[child], visits[child], parent_visits, c)
        if score > best_score:
            best_score = score
            best = child
        child = next_sibling[child]
    return best


@njit(cache=True, nogil=True)
def bfms_score(value: float, visits: int, parent_visits: int, c: float, fpu: float) -> float:
    """Best-First Minimax with UCT: ``eval + C * sqrt(ln N / n)``; unvisited: ``eval + FPU``."""
    if visits == 0:
        return value + fpu
    return value + c * math.sqrt(math.log(max(1, parent_visits)) / visits)


@njit(cache=True, nogil=True)
def select_bfms(tree: tuple, node: int, c: float, fpu: float) -> int:
    """Child of ``node`` with the highest bfms score (first in list order on ties)."""
    first_child, next_sibling, visits, value = (
        tree[FIRST_CHILD], tree[NEXT_SIBLING], tree[VISITS], tree[VALUE],
    )  # fmt: skip
    best = NONE
    best_score = -INF
    child = first_child[node]
    while child != NONE:
        score = bfms_score(value[child], visits[child], visits[node], c, fpu)
        if score > best_score:
            best_score = score
            best = child
        child = next_sibling[child]
    return best


@njit(cache=True, nogil=True)
def random_unvisited(tree: tuple, node: int, rng: np.ndarray) -> int:
    """A uniformly chosen child of ``node`` with no visits, or NONE."""
    first_child, next_sibling, visits = tree[FIRST_CHILD], tree[NEXT_SIBLING], tree[VISITS]
    count = 0
    child = first_child[node]
    while child != NONE:
        if visits[child] == 0:
            count += 1
        child = next_sibling[child]
    if count == 0:
        return NONE
    k = rng_below(rng, count)
    child = first_child[node]
    while child != NONE:
        if visits[child] == 0:
            if k == 0:
                return child
            k -= 1
        child = next_sibling[child]
    return NONE
