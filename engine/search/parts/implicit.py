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
def best_evaluated(tree: tuple, node: int) -> int:
    """``node``'s evaluated child with the highest value (the first of equals), a child
    proven lost for the side choosing left out: the child :func:`implicit_value` takes
    ``node``'s value from, the step view's deciding reply and the prior's refutation;
    ``NONE`` if there is none."""
    flags, outcome, value = tree[FLAGS], tree[OUTCOME], tree[VALUE]
    best, top = NONE, -1.0e30
    child = tree[FIRST_CHILD][node]
    while child != NONE:
        f = flags[child]
        if f & EVALUATED and not (f & PROVEN and outcome[child] < 0) and value[child] > top:
            best, top = child, value[child]
        child = tree[NEXT_SIBLING][child]
    return best


@njit(cache=True, nogil=True)
def implicit_value(tree: tuple, node: int) -> None:
    """Set ``node``'s value to ``-max`` of its evaluated children's values."""
    best = best_evaluated(tree, node)
    tree[VALUE][node] = -tree[VALUE][best] if best != NONE else tree[EVAL][node]
