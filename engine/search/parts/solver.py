"""MCTS-Solver (Winands, Björnsson & Saito 2008): game-theoretic values proven in the tree.

Averages of rewards never become certain: a mate in two sits at Q = 0.97 beside a
move at 0.95 for as long as the search runs. The solver marks what *is* certain.
A finished game is proven by the rules; a node is proven **won** for the side that
moved into it when every move from it is proven lost for the side to move there,
and proven **lost** as soon as one move from it is proven won for the side to move
there; when every move is proven and the best is a draw, it is a proven draw.

A proven node holds ``PROVEN`` in ``flags``, its result in ``outcome`` (+1 / 0 / -1
for the side that moved into it) and its game value in ``value``: ``WIN - 10·d``
with d the plies from the root to the game's end, so a quicker win is worth more
and the negamax of proven children picks the shortest win and the longest defence.
"""

from __future__ import annotations

from numba import njit

from engine.search.tree import (
    FIRST_CHILD,
    FLAGS,
    NEXT_SIBLING,
    NONE,
    NUM_CHILDREN,
    NUM_LEGAL,
    OUTCOME,
    PROVEN,
    VALUE,
)


@njit(cache=True, nogil=True)
def prove(tree: tuple, node: int) -> bool:
    """Apply the proof rules to ``node`` from its children; True if it is proven now.

    Needs every child to exist for a loss-everywhere or draw proof (the node was
    expanded whole); one proven-won child suffices for a proven loss.
    """
    flags, outcome, value = tree[FLAGS], tree[OUTCOME], tree[VALUE]
    if flags[node] & PROVEN:
        return True
    first_child, next_sibling = tree[FIRST_CHILD], tree[NEXT_SIBLING]
    if first_child[node] == NONE:
        return False
    best_outcome = -2
    best_value = -1.0e30
    win_value = -1.0e30
    all_proven = True
    child = first_child[node]
    while child != NONE:
        if flags[child] & PROVEN:
            o = outcome[child]
            if o > best_outcome:
                best_outcome = o
            if value[child] > best_value:
                best_value = value[child]
            if o > 0 and value[child] > win_value:
                win_value = value[child]
        else:
            all_proven = False
        child = next_sibling[child]
    if best_outcome > 0:  # a winning reply: lost for the side that moved into the node
        flags[node] |= PROVEN
        outcome[node] = -1
        value[node] = -win_value  # the shortest win
        return True
    if all_proven and tree[NUM_CHILDREN][node] == tree[NUM_LEGAL][node]:
        flags[node] |= PROVEN
        outcome[node] = -best_outcome
        value[node] = -best_value  # the longest defence, or 0 for a draw
        return True
    return False
