"""Back-propagation: carry a leaf's result up the path to the root."""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.search.parts.implicit import implicit_value
from engine.search.parts.solver import prove
from engine.search.tree import (
    FIRST_CHILD,
    FLAGS,
    NEXT_SIBLING,
    NONE,
    PARENT,
    PROVEN,
    TERMINAL,
    VALUE,
    VALUE_SUM,
    VISITS,
)


@njit(cache=True, nogil=True)
def backup_average(tree: tuple, node: int, reward: float) -> None:
    """UCT: add one visit and the reward to every node up to the root.

    ``reward`` is for the side that moved into ``node``; one ply up it is the
    other side's, so it flips to ``1 - reward`` at each step.
    """
    parent, visits, value_sum = tree[PARENT], tree[VISITS], tree[VALUE_SUM]
    while node != NONE:
        visits[node] += 1
        value_sum[node] += reward
        reward = 1.0 - reward
        node = parent[node]


@njit(cache=True, nogil=True)
def negamax_of_children(tree: tuple, node: int) -> float:
    """``-max(children's values)``: the node's value for the side that moved into it."""
    first_child, next_sibling, value = tree[FIRST_CHILD], tree[NEXT_SIBLING], tree[VALUE]
    best = -1.0e30
    child = first_child[node]
    while child != NONE:
        if value[child] > best:
            best = value[child]
        child = next_sibling[child]
    return -best


@njit(cache=True, nogil=True)
def backup_negamax(tree: tuple, node: int) -> None:
    """bfms: add a visit to every node on the path and overwrite each expanded,
    non-terminal node's value with ``-max(children)`` (negamax), leaf to root."""
    parent, visits, value = tree[PARENT], tree[VISITS], tree[VALUE]
    first_child, flags = tree[FIRST_CHILD], tree[FLAGS]
    while node != NONE:
        visits[node] += 1
        if first_child[node] != NONE and not (flags[node] & TERMINAL):
            value[node] = negamax_of_children(tree, node)
        node = parent[node]


@njit(cache=True, nogil=True)
def backup_negamax_proofs(tree: tuple, node: int) -> None:
    """bfms with proofs: :func:`backup_negamax`, then each path node's proof from its
    children (MCTS-Solver's rules; a proven node's value is the same negamax)."""
    parent, visits, value = tree[PARENT], tree[VISITS], tree[VALUE]
    first_child, flags = tree[FIRST_CHILD], tree[FLAGS]
    while node != NONE:
        visits[node] += 1
        if first_child[node] != NONE and not (flags[node] & (TERMINAL | PROVEN)):
            value[node] = negamax_of_children(tree, node)
            prove(tree, node)
        node = parent[node]


@njit(cache=True, nogil=True)
def backup_solver(tree: tuple, path: np.ndarray, length: int, reward: float, solver: bool) -> None:
    """mcts: average the reward up the path (flipped at each ply, as in UCT) and, above the
    leaf, refresh each node's implicit minimax value and — with ``solver`` — its proof.

    A proof travels as far as the rules carry it (MCTS-Solver): the leaf's proven win
    makes its parent a proven loss, which may make the grandparent a proven win, and
    so on; the rewards backed up along it are those results (1 / 0), which the flip
    of an ordinary reward gives anyway.
    """
    visits, value_sum, flags = tree[VISITS], tree[VALUE_SUM], tree[FLAGS]
    r = reward
    for i in range(length - 1, -1, -1):
        node = path[i]
        visits[node] += 1
        value_sum[node] += r
        above_leaf = i < length - 1
        if above_leaf and not (flags[node] & PROVEN) and not (solver and prove(tree, node)):
            implicit_value(tree, node)
        r = 1.0 - r
