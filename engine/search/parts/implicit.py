"""Implicit minimax backups (Lanctot, Winands, Pepels & Sturtevant 2014).

Besides its average reward, every node keeps the negamax of its children's
evaluations: ``value = -max(children's values)``, a leaf's value being its own
evaluation. Averages are slow to notice that one reply refutes a move (the
refutation must be visited many times to pull the mean down); the minimax value
knows it as soon as the refutation's evaluation is in. Selection blends the two,
``(1 - α)·Q + α·minimax``.

Only evaluated children count (an unvisited child has no evaluation yet). A
child proven lost for the side choosing it is left out while anything else is
there: its game value (−10000…) is certain, but the node's own value must say
how good the best *playable* move is; when every evaluated child is lost so far,
the node keeps its own evaluation until the solver decides it.
"""

from __future__ import annotations

from numba import njit

from engine.search.tree import (
    EVAL,
    EVALUATED,
    FIRST_CHILD,
    FLAGS,
    NEXT_SIBLING,
    NONE,
    OUTCOME,
    PROVEN,
    VALUE,
)


@njit(cache=True, nogil=True)
def implicit_value(tree: tuple, node: int) -> None:
    """Set ``node``'s value to ``-max`` of its evaluated children's values."""
    first_child, next_sibling, flags = tree[FIRST_CHILD], tree[NEXT_SIBLING], tree[FLAGS]
    value, outcome = tree[VALUE], tree[OUTCOME]
    best = -1.0e30
    child = first_child[node]
    while child != NONE:
        f = flags[child]
        if f & EVALUATED and not (f & PROVEN and outcome[child] < 0) and value[child] > best:
            best = value[child]
        child = next_sibling[child]
    value[node] = -best if best > -1.0e30 else tree[EVAL][node]
