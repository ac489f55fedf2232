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
from engine.core.state import CHESS, GAME, HALFMOVE, HASH
from engine.search.codes import FULL, GO_ON, ROOT_TERMINAL, STOPPED, T_FIRST_NEW, T_NEW_COUNT
from engine.search.tree import CAPACITY, FLAGS, META, MOVE, ROOT, TERMINAL, USED

# Zobrist keys of the positions on the way to a node: ``keys[HIST_MAX + p]`` is the
# key at path position p (the root is p = 0); the game's positions before the root
# end at ``keys[HIST_MAX - 1]`` (zeros where the game is shorter).
HIST_MAX = 256


@njit(cache=True, nogil=True)
def begin(
    root: np.ndarray, s: np.ndarray, path: np.ndarray, info: np.ndarray, keys: np.ndarray
) -> int:
    """Start at the root: copy its position, reset the trace; return the path length (1)."""
    s[:] = root
    path[0] = ROOT
    keys[HIST_MAX] = s[HASH]
    info[T_FIRST_NEW] = -1
    info[T_NEW_COUNT] = 0
    return np.int64(1)  # typed, not the literal 1: its callers' callees compile once


@njit(cache=True, nogil=True)
def descend(
    tree: tuple, child: int, s: np.ndarray, path: np.ndarray, length: int, keys: np.ndarray
) -> int:
    """Step into ``child``: play its move on ``s`` and append it to the path."""
    make_move(s, tree[MOVE][child])
    path[length] = child
    keys[HIST_MAX + length] = s[HASH]
    return length + 1


@njit(cache=True, nogil=True)
def repeated(keys: np.ndarray, index: int, s: np.ndarray) -> bool:
    """Chess: ``s`` (at ``keys[index]``) already occurred on its path or earlier in the game,
    since the last capture or pawn move. Inside a search one repetition counts as a draw:
    whoever could win would not have allowed it."""
    if s[GAME] != CHESS:
        return False
    key = s[HASH]
    back = np.int64(s[HALFMOVE])
    k = 4  # the same side to move needs at least four plies to come back
    while k <= back and index - k >= 0:
        if keys[index - k] == key:
            return True
        k += 2
    return False


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
