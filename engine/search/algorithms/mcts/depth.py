"""How deep each of ``mcts``'s searches goes: the plies that flow down from the root
(``root_depth``), the plies ``rescore`` adds as a node gathers visits, and a full tree's
leaves searched deeper. The kernels, the step view and the node card all read the
depths here, so they cannot disagree."""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.search.tree import (
    DEPTH,
    EVALUATED,
    FIRST_CHILD,
    FLAGS,
    NEXT_SIBLING,
    NONE,
    PROVEN,
    TERMINAL,
    VISITS,
)

#: In a full tree a leaf is re-scored one ply deeper at each visit, up to this many
#: plies beyond its own depth (deeper still would take longer than a move).
FULL_TREE_PLIES = 4
#: ``rescore``: the visits at which a node's untried children are first scored again (the
#: value measured with it; 8 lost 9 points a game in a paired match, docs/results.md,
#: code e412672).
RESCORE_VISITS = 32
#: ``rescore``: each further ply comes at this many times the visits of the one before.
RESCORE_GROWTH = 4


@njit(cache=True, nogil=True)
def search_depth(kp: np.record, ply: int) -> int:
    """Plies of alpha-beta search before the quiescence search for a node ``ply`` plies
    below the root: ``root_depth − ply`` while that is positive, so the depth flows down
    the tree from the root (Scorpio's hybrid) — the few nodes near the root, where a
    missed quiet tactic costs the game, are searched as an alpha-beta search of that
    depth would, the many deep ones by the quiescence search alone and stay cheap."""
    return max(0, kp.root_depth - ply)


@njit(cache=True, nogil=True)
def visit_plies(kp: np.record, visits: int) -> int:
    """Plies ``rescore`` adds to the searches that score the children of a node with
    ``visits`` visits: one from :data:`RESCORE_VISITS` on, one more at each
    :data:`RESCORE_GROWTH` times as many, ``rescore`` at most (0: off)."""
    most = kp.rescore
    mark = np.int64(RESCORE_VISITS)
    plies = 0
    while plies < most and visits >= mark:
        plies += 1
        mark *= RESCORE_GROWTH
    return plies


@njit(cache=True, nogil=True)
def children_depth(tree: tuple, node: int, kp: np.record) -> int:
    """Plies of alpha-beta search that score ``node``'s children now:
    what :func:`search_depth` gives a node one ply below ``node``, plus the plies
    ``rescore`` has earned ``node`` with its visits (:func:`visit_plies`). The scoring
    itself (:func:`score_children`), the step view's report of it and the depth a child's
    own re-search counts on from all read it here, so the three cannot disagree."""
    ply = tree[DEPTH][node] + 1
    return search_depth(kp, ply) + visit_plies(kp, tree[VISITS][node])


@njit(cache=True, nogil=True)
def rescore_due(tree: tuple, node: int, kp: np.record) -> bool:
    """Whether ``node`` has just reached a visit count where :func:`visit_plies` grows and
    has an :func:`untried` child to score again (a child tried has a value its subtree
    backed up)."""
    if kp.rescore <= 0 or not kp.evaluate or tree[FLAGS][node] & PROVEN:
        return False  # (a lazy expansion scores each child at its own first visit)
    visits = tree[VISITS][node]
    if visit_plies(kp, visits) == visit_plies(kp, visits - 1):
        return False
    child = tree[FIRST_CHILD][node]
    while child != NONE:
        if untried(tree, child):
            return True
        child = tree[NEXT_SIBLING][child]
    return False


@njit(cache=True, nogil=True)
def untried(tree: tuple, child: int) -> bool:
    """A child scored when its parent was expanded and never chosen since (no visit, no
    children), neither proven nor a finished game: what ``rescore`` scores again."""
    f = tree[FLAGS][child]
    return (
        tree[VISITS][child] == 0
        and tree[FIRST_CHILD][child] == NONE
        and f & EVALUATED != 0
        and f & (PROVEN | TERMINAL) == 0
    )
