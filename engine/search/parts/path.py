"""Walking the tree: the bookkeeping every iteration shares.

An iteration copies the root position, records the path it walks (for the
back-up and for step traces) and says which nodes it created; a batch stops
before an iteration that the stop flag, the tree's free room or a finished
root game forbids.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.core.games import make_move
from engine.search.codes import FULL, GO_ON, ROOT_TERMINAL, STOPPED, T_FIRST_NEW, T_NEW_COUNT
from engine.search.tree import CAPACITY, FLAGS, META, MOVE, ROOT, TERMINAL, USED


@njit(cache=True, nogil=True)
def begin(root: np.ndarray, s: np.ndarray, path: np.ndarray, info: np.ndarray) -> int:
    """Start at the root: copy its position, reset the trace; return the path length (1)."""
    s[:] = root
    path[0] = ROOT
    info[T_FIRST_NEW] = -1
    info[T_NEW_COUNT] = 0
    return 1


@njit(cache=True, nogil=True)
def descend(tree: tuple, child: int, s: np.ndarray, path: np.ndarray, length: int) -> int:
    """Step into ``child``: play its move on ``s`` and append it to the path."""
    make_move(s, tree[MOVE][child])
    path[length] = child
    return length + 1


@njit(cache=True, nogil=True)
def record_new(info: np.ndarray, first: int, count: int) -> None:
    """Note the nodes this iteration created (ids first .. first + count - 1)."""
    info[T_FIRST_NEW] = first
    info[T_NEW_COUNT] = count


@njit(cache=True, nogil=True)
def guard(tree: tuple, stop: np.ndarray, free_needed: int) -> int:
    """Why the next iteration must not run (STOPPED, FULL, ROOT_TERMINAL), else GO_ON."""
    if stop[0]:
        return STOPPED
    meta = tree[META]
    if meta[CAPACITY] - meta[USED] < free_needed:
        return FULL
    if tree[FLAGS][ROOT] & TERMINAL:
        return ROOT_TERMINAL
    return GO_ON
