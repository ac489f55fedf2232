"""Tree policies: which child to descend into.

Every rule ranks a parent's children by a value for the side to move at the
parent (= the side that moved into the child, the point of view every node
value is stored in) plus an exploration bonus.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from engine.core.bits import rng_below
from engine.search.tree import (
    EVAL,
    EVALUATED,
    FIRST_CHILD,
    FLAGS,
    NEXT_SIBLING,
    NONE,
    OUTCOME,
    PRIOR,
    PROVEN,
    VALUE,
    VALUE_SUM,
    VISITS,
)

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


@njit(cache=True, nogil=True)
def puct_score(
    q: float, prior: float, visits: int, parent_visits: int, c_puct: float
) -> tuple[float, float]:
    """PUCT (AlphaZero's form): ``(q + c·P·sqrt(N) / (1 + n), the exploration term)``."""
    explore = c_puct * prior * math.sqrt(max(1, parent_visits)) / (1.0 + visits)
    return q + explore, explore


@njit(cache=True, nogil=True)
def blended_q(value_sum: float, visits: int, value: float, alpha: float) -> float:
    """``(1 - α)·Q + α·minimax`` for a visited child: the mean reward blended with its
    implicit minimax value read as an expected score (clamped: a proven win is 1)."""
    minimax = 0.5 * (1.0 + min(1.0, max(-1.0, value)))
    if visits == 0:
        return minimax
    return (1.0 - alpha) * (value_sum / visits) + alpha * minimax


@njit(cache=True, nogil=True)
def fpu_value(tree: tuple, node: int, fpu: float) -> float:
    """First-play urgency: what a child of ``node`` not yet evaluated is taken to be worth —
    ``node``'s own leaf evaluation read as the chooser's expected score, less ``fpu``.
    (The evaluation, not the running mean: it is fixed once ``node`` is evaluated, so the
    step view recomputes exactly the urgency the kernel compared.)"""
    return 0.5 * (1.0 - tree[EVAL][node]) - fpu


@njit(cache=True, nogil=True)
def select_puct(
    tree: tuple, node: int, c_puct: float, alpha: float, fpu: float, solver: bool
) -> int:
    """Child of ``node`` with the highest PUCT score of its blended value (first in list
    order on ties), never one proven lost for the chooser while ``solver`` is on; NONE if
    every child is."""
    first_child, next_sibling, visits, value_sum = (
        tree[FIRST_CHILD], tree[NEXT_SIBLING], tree[VISITS], tree[VALUE_SUM],
    )  # fmt: skip
    value, prior, flags, outcome = tree[VALUE], tree[PRIOR], tree[FLAGS], tree[OUTCOME]
    parent_visits = visits[node]
    urgency = fpu_value(tree, node, fpu)
    best = NONE
    best_score = -INF
    child = first_child[node]
    while child != NONE:
        f = flags[child]
        if solver and f & PROVEN and outcome[child] < 0:
            child = next_sibling[child]
            continue
        if f & EVALUATED:
            q = blended_q(value_sum[child], visits[child], value[child], alpha)
        else:
            q = urgency
        score, _ = puct_score(q, prior[child], visits[child], parent_visits, c_puct)
        if score > best_score:
            best_score = score
            best = child
        child = next_sibling[child]
    return best
